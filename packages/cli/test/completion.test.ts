import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { fidelis } from "./bin.js"

/** What bash offers after the typed words, with the generated script loaded. */
const complete = (script: string, words: string[]) =>
  execFileSync(
    "bash",
    [
      "-c",
      `eval "$1"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _fidelis; ` +
        `echo "\${COMPREPLY[*]}"`,
      "_",
      script
    ],
    { encoding: "utf8" }
  ).trim()

describe("fidelis completion", () => {
  it("completes commands and options derived from the router, in bash", async () => {
    const { code, stdout } = await fidelis(["completion", "bash"])
    expect(code).toBe(0)
    expect(complete(stdout, ["fidelis", "cou"])).toBe("coupons")
    expect(complete(stdout, ["fidelis", "cards", "st"])).toBe("stamp")
    expect(complete(stdout, ["fidelis", "points", "credit", "--po"]).split(" ")).toEqual(["--points"])
    // A value after an option is skipped, so the command path stays right.
    expect(complete(stdout, ["fidelis", "clients", "list", "--search", "ana", "--so"])).toBe("--sort")
  })

  it("prints a zsh script and refuses other shells", async () => {
    const zsh = await fidelis(["completion", "zsh"])
    expect(zsh.stdout).toContain("bashcompinit")
    const fish = await fidelis(["completion", "fish"])
    expect(fish.code).not.toBe(0)
    expect(fish.stderr.trim().split("\n")).toHaveLength(1)
  })
})
