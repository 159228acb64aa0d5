import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { balanceOf, call, createTenant, ROOT, useServer } from "./support/index.js"

/**
 * The published @fidelis/client as a stranger gets it: packed, installed into a project outside the
 * workspace (so nothing resolves to this repository), compiled with strict tsc and run against the server.
 * Building the package (dist/ missing) also generates the REST types with openapi-typescript and compiles
 * them; this is where CI does that.
 */
const run = promisify(execFile)
const PACKAGE = join(ROOT, "packages", "client")
const server = useServer()

/** The README's example, verbatim: the first TypeScript block. */
const readmeExample = () => {
  const block = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(PACKAGE, "README.md"), "utf8"))
  if (block === null) throw new Error("packages/client/README.md has no ```ts example")
  return block[1]!
}

const tsc = (project: string, config: string) =>
  run(process.execPath, [join(project, "node_modules", "typescript", "bin", "tsc"), "-p", config], { cwd: project })
    .then(() => "")
    .catch((error: { stdout?: string }) => error.stdout ?? String(error))

let project: string

beforeAll(async () => {
  if (!existsSync(join(PACKAGE, "dist", "index.js")) || !existsSync(join(PACKAGE, "dist", "index.d.ts")))
    await run("npm", ["run", "build", "-w", "@fidelis/client"], { cwd: ROOT })
  project = mkdtempSync(join(tmpdir(), "fidelis-client-"))
  // Built above: packing runs no prepack build a second time.
  await run("npm", ["pack", "--ignore-scripts", "--pack-destination", project], { cwd: PACKAGE })
  const tarball = readdirSync(project).find((name) => name.endsWith(".tgz"))!
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "outside", private: true, type: "module" }))
  const compilerOptions = { strict: true, module: "nodenext", target: "es2022", types: ["node"] }
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["main.ts"] }))
  writeFileSync(
    join(project, "tsconfig.wrong.json"),
    JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true }, files: ["wrong-trpc.ts", "wrong-rest.ts"] })
  )
  await run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", `./${tarball}`, "typescript@~5.9.3", "@types/node@^20"],
    { cwd: project }
  )
}, 600_000)

afterAll(() => {
  if (project !== undefined) rmSync(project, { recursive: true, force: true })
})

describe("@fidelis/client installed outside the workspace", () => {
  it("ships only the built files, and types that import nothing of the server", () => {
    const installed = join(project, "node_modules", "@fidelis", "client")
    expect(readdirSync(join(installed, "dist")).toSorted()).toEqual(["index.d.ts", "index.js"])
    expect(existsSync(join(project, "node_modules", "@fidelis", "core"))).toBe(false)
    expect(existsSync(join(project, "node_modules", "effect"))).toBe(false)
    const types = readFileSync(join(installed, "dist", "index.d.ts"), "utf8")
    expect(types).not.toMatch(/(from|import\()\s*["'](@fidelis\/|effect|@effect\/|zod)/)
  })

  it("compiles the README example under strict tsc, and refuses calls that do not fit the API", async () => {
    writeFileSync(join(project, "main.ts"), readmeExample())
    expect(await tsc(project, "tsconfig.json")).toBe("")

    const prelude = [
      'import { createFidelisClient, createFidelisRestClient } from "@fidelis/client"',
      'const fidelis = createFidelisClient({ url: "http://localhost:3000", apiKey: "k" })',
      'const rest = createFidelisRestClient({ baseUrl: "http://localhost:3000", apiKey: "k" })'
    ].join("\n")
    writeFileSync(
      join(project, "wrong-trpc.ts"),
      `${prelude}\nawait fidelis.points.credit.mutate({ client_id: "c", points: "fifty" })\nexport {}\n`
    )
    writeFileSync(
      join(project, "wrong-rest.ts"),
      `${prelude}\nawait rest.GET("/points/{client_id}", { params: { path: { client_id: 42 } } })\nexport {}\n`
    )
    const errors = await tsc(project, "tsconfig.wrong.json")
    expect(errors).toMatch(/wrong-trpc\.ts\(4,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/)
    expect(errors).toMatch(/wrong-rest\.ts\(4,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/)
    expect(errors.match(/error TS/g)).toHaveLength(2)
    // Each strict tsc run checks the whole published declaration file (no skipLibCheck): tens of seconds.
  }, 300_000)

  it("runs the README example against the server: a client created and credited by tRPC, read by REST", async () => {
    const tenant = await createTenant(server)
    const { stdout } = await run(process.execPath, ["main.js"], {
      cwd: project,
      env: { PATH: process.env["PATH"] ?? "", FIDELIS_URL: server.url, FIDELIS_API_KEY: tenant.key }
    })
    expect(stdout.trim()).toBe("Maria Souza has 50 points")

    const clients = await call(server, "/api/v1/public/clients?search=maria.souza", { key: tenant.key })
    expect(clients.body).toMatchObject({ total: 1, data: [{ nome: "Maria Souza", pontos: 50 }] })
    expect(await balanceOf(server, tenant, clients.body.data[0].id)).toBe(50)
  })
})
