// trpc-cli probes its optional peers at load time with top-level `await import(...)`. Bundled, a
// namespace import keeps every module of its target: `import('effect')` alone put all of effect (and
// fast-check, through effect's Arbitrary) into the CLI, about 1.9 MB it never runs, since the router's
// schemas are zod's. And top-level await cannot be compiled to the script the CLI's code cache needs.
// So the probes become what they resolve to: zod and node's modules imported statically, the peers
// the CLI does not use as their "not installed" answer. docs/decisions.md, "CLI start-up".
import { readFile } from "node:fs/promises"
import { basename } from "node:path"

/** `await Promise.all([import('a').catch(String), …])`, whitespace as it comes. */
const probeAll = (names) => {
  const probes = names.map((name) => `import\\('${name}'\\)\\.catch\\(String\\)`)
  return new RegExp(`await Promise\\.all\\(\\[\\s*${probes.join(",\\s*")},?\\s*\\]\\)`)
}

const absent = (name) => JSON.stringify(`${name} is not part of the Fidelis CLI`)

/** Per file of trpc-cli's dist: what to prepend, and each probe with its replacement. */
const PROBES = {
  "index.js": { replace: [["await import('@orpc/server').catch(String)", absent("@orpc/server")]] },
  "parse-router.js": { replace: [["await import('@orpc/server').catch(String)", absent("@orpc/server")]] },
  "resolve-name.js": {
    prepend: 'import * as __fs from "node:fs"; import * as __path from "node:path";\n',
    replace: [["await Promise.all([import('node:fs'), import('node:path')]).catch(String)", "[__fs, __path]"]]
  },
  "json-schema.js": {
    prepend: 'import * as __zod4Core from "zod/v4/core";\n',
    replace: [
      [
        probeAll(["valibot", "@valibot/to-json-schema", "effect", "zod/v4/core"]),
        `[${absent("valibot")}, ${absent("@valibot/to-json-schema")}, ${absent("effect")}, __zod4Core]`
      ]
    ]
  }
}

/**
 * The esbuild plugin. A probe it does not find (another trpc-cli version) fails the build rather
 * than silently bundling the peers again.
 */
export const trpcCliImports = {
  name: "trpc-cli-imports",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]trpc-cli[\\/]dist[\\/][^\\/]+\.js$/ }, async (args) => {
      const probes = PROBES[basename(args.path)]
      if (probes === undefined) return
      let text = await readFile(args.path, "utf8")
      for (const [probe, replacement] of probes.replace) {
        const next = text.replace(probe, replacement)
        if (next === text) throw new Error(`trpc-cli-imports: ${args.path} no longer has ${String(probe)}`)
        text = next
      }
      return { contents: (probes.prepend ?? "") + text, loader: "js" }
    })
  }
}
