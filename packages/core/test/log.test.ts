import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest"
import { log } from "../src/log.js"

let write: MockInstance<typeof process.stdout.write>

beforeEach(() => {
  vi.useFakeTimers()
  write = vi.spyOn(process.stdout, "write").mockImplementation(() => true)
})
afterEach(() => {
  vi.runOnlyPendingTimers()
  write.mockRestore()
  vi.useRealTimers()
})

const written = () => write.mock.calls.map(([chunk]) => String(chunk))

describe("the server log's writes", () => {
  it("sends the lines of 25 ms together, in one write, once that time is up", () => {
    log("info", "first")
    vi.advanceTimersByTime(10)
    log("info", "second")
    vi.advanceTimersByTime(14)
    expect(write).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(written()).toHaveLength(1)
    expect(
      written()[0]!
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).message)
    ).toEqual(["first", "second"])
  })

  it("writes at once when 64 KB of lines wait, without waiting for the timer", () => {
    const padding = "x".repeat(1_000)
    for (let i = 0; i < 70; i++) log("info", "line", { padding })
    expect(written()).toHaveLength(1)
    expect(written()[0]!.length).toBeGreaterThanOrEqual(64 * 1024)
    expect(written()[0]!.length).toBeLessThan(64 * 1024 + 1_100)
  })
})
