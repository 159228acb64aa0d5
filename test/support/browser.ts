import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core"
import { afterAll, beforeAll, expect } from "vitest"

/**
 * The server's pages in a real browser on a phone-sized screen: Debian's chromium driven by
 * playwright-core. Without chromium a page's test file is skipped locally and fails in CI
 * (.ci/run installs it).
 */

export const CHROMIUM = "/usr/bin/chromium"
export const chromiumMissing = !existsSync(CHROMIUM)
/** Run the file here; CI runs it (and fails without chromium) even where the binary is missing. */
export const skipBrowser = chromiumMissing && process.env["CI"] !== "true"
/** A test title's suffix saying why the file was skipped. */
export const browserSkipNote = chromiumMissing ? ` (skipped: ${CHROMIUM} is missing; apt-get install chromium)` : ""

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

export interface PhoneBrowser {
  readonly context: BrowserContext
  readonly page: Page
  /** Content-Security-Policy refusals and script errors the page logged: none may happen. */
  readonly consoleErrors: ReadonlyArray<string>
  close(): Promise<void>
}

/** A persistent chromium context with one page, sized and set up as a Brazilian phone. */
export const launchPhone = async (): Promise<PhoneBrowser> => {
  if (chromiumMissing) throw new Error(`CI needs ${CHROMIUM} for the pages' browser tests: apt-get install chromium`)
  const userDataDir = mkdtempSync(join(tmpdir(), "fidelis-chromium-"))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ],
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: "pt-BR"
  })
  const page = context.pages()[0] ?? (await context.newPage())
  const consoleErrors: string[] = []
  // The API's refusals the tests provoke (400, 404) are logged too, as failed loads: those are expected.
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
      consoleErrors.push(message.text())
    }
  })
  page.on("pageerror", (error) => consoleErrors.push(error.message))
  return {
    context,
    page,
    consoleErrors,
    close: async () => {
      await context.close()
      rmSync(userDataDir, { recursive: true, force: true })
      if (consoleErrors.length > 0) throw new Error(`The page logged errors:\n${consoleErrors.join("\n")}`)
    }
  }
}

/** One phone for the describe block that calls it: launched before its tests, `ready` gets its page. */
export const usePhone = (ready: (page: Page) => void) => {
  let browser: PhoneBrowser | undefined
  beforeAll(async () => {
    browser = await launchPhone()
    ready(browser.page)
  }, 60_000)
  afterAll(() => browser?.close())
}

/**
 * axe-core on the page as it is now; serious or critical violations fail. Evaluated rather than
 * added as a script tag: the pages' Content-Security-Policy refuses inline scripts without its nonce.
 */
export const expectAccessible = async (page: Page, state: string) => {
  await page.evaluate(AXE)
  const violations = await page.evaluate(async () => {
    const results = await (window as any).axe.run(document)
    return results.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }))
  })
  expect(
    violations.filter((v: { impact: string }) => v.impact === "serious" || v.impact === "critical"),
    `${state}: ${JSON.stringify(violations)}`
  ).toEqual([])
}

/** The page changes after a request: these wait for it (playwright-core has no web-first assertions). */
export const focused = (locator: Locator) => expect.poll(() => locator.evaluate((el) => el === document.activeElement))
export const visible = (locator: Locator) => expect.poll(() => locator.isVisible())
export const textOf = (locator: Locator) => expect.poll(async () => (await locator.textContent()) ?? "")
