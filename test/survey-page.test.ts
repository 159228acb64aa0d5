import { join } from "node:path"
import type { Page } from "playwright-core"
import { beforeAll, describe, expect, it } from "vitest"
import {
  browserSkipNote,
  expectAccessible as accessible,
  focused,
  skipBrowser,
  textOf,
  usePhone,
  visible
} from "./support/browser.js"
import {
  call,
  createClient,
  createQuest,
  createTenant,
  ROOT,
  updateSettings,
  useServer,
  type Tenant
} from "./support/index.js"

/**
 * The hosted survey page (`/s/{ref}`) in a real browser on a phone-sized screen (support/browser.ts):
 * what a respondent does, and what the company API then shows.
 */

const title = `the survey page in Chromium${browserSkipNote}`
/** `npm run screenshots` sets it: the test then refreshes docs/screenshots/survey-*.png. */
const SCREENSHOTS = process.env["SURVEY_SCREENSHOTS"] === "1"

const REVIEW = "https://g.page/r/loja-teste/review"
// A logo field takes http(s) only; the phone answers this address itself, so no network is needed.
const LOGO = "https://logo.fidelis.test/padaria.svg"
const LOGO_SVG =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 56 56"><circle cx="28" cy="28" r="28" fill="#fff"/>` +
  `<text x="28" y="37" font-size="26" text-anchor="middle" fill="#7c2d12">☕</text></svg>`

const server = useServer({ env: { FIDELIS_PUBLIC_RATE_LIMIT_PER_MINUTE: "1000000" } })

const responsesOf = async (tenant: Tenant, questId: string) => {
  const res = await call(server, `/api/v1/public/quests/${questId}/responses`, { key: tenant.key })
  expect(res.status).toBe(200)
  return res.body.data as Array<Record<string, any>>
}

/** A store name for the pictures; the generated tenant name says nothing to a reader. */
const rename = async (tenant: Tenant, name: string) => {
  const res = await call(server, `/api/v1/internal/empresas/${tenant.empresa.id}`, {
    method: "PATCH",
    key: server.adminKey,
    body: { name }
  })
  expect(res.status).toBe(200)
}

describe.skipIf(skipBrowser)(title, () => {
  let page: Page
  usePhone((opened) => {
    page = opened
    void page.route(LOGO, (route) => route.fulfill({ contentType: "image/svg+xml", body: LOGO_SVG }))
  })

  const open = async (tenant: Tenant) => {
    const res = await page.goto(`${server.url}/s/${tenant.empresa.id_name}`)
    expect(res?.status()).toBe(200)
    return res!.headers()
  }

  /** A tap on an answer's label, as a finger does: the radio itself is drawn by its label. */
  const tap = (field: string, value: number) => page.locator(`label[for="f-${field}-${value}"]`).click()

  const expectAccessible = (state: string) => accessible(page, state)

  const questOf = () => page.locator("main").getAttribute("data-quest") as Promise<string>

  const screenshot = async (name: string) => {
    if (!SCREENSHOTS) return
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    await page.screenshot({ path: join(ROOT, "docs", "screenshots", name), fullPage: true })
  }

  const submitAnswers = () => page.getByRole("button", { name: "Enviar respostas" }).click()

  describe("the default CSAT + NPS survey", () => {
    let tenant: Tenant
    beforeAll(async () => {
      tenant = await createTenant(server)
      await updateSettings(server, tenant, { url_review_avaliation: REVIEW, primary_color: "#7c2d12", logo_url: LOGO })
      await rename(tenant, "Padaria Sol")
    })

    it("a promoter sees the review link, leaves a contact and learns the referral link goes by email", async () => {
      // A client's phone: the page must not tell it apart from anyone else's.
      await createClient(server, tenant, { nome: "Maria Souza", telefone: "+5511987654321" })
      const headers = await open(tenant)
      // Rendered through surveys.active with the respondent's address: the public budget counts the page.
      expect(headers["x-ratelimit-limit"]).toBe("1000000")
      expect(headers["content-security-policy"]).toMatch(/^default-src 'none'; script-src 'nonce-[^']+'; /)
      expect(await page.getAttribute("html", "lang")).toBe("pt-BR")
      expect(await page.title()).toBe("Pesquisa de satisfação · Padaria Sol")
      expect(await page.locator(".store").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
        "rgb(124, 45, 18)"
      )
      expect(await page.locator(".store img").getAttribute("src")).toBe(LOGO)
      // Stars for CSAT, a 0-10 scale for NPS, each a radio group with its question as legend.
      const csat = page.getByRole("group", { name: /Como você avalia sua experiência/ }).getByRole("radio")
      expect(await csat.count()).toBe(5)
      const nps = page.getByRole("group", { name: /o quanto você nos recomendaria/ }).getByRole("radio")
      expect(await nps.count()).toBe(11)
      await expectAccessible("initial page")

      await tap("csat", 5)
      await tap("nps", 10)
      await page.getByLabel("Quer deixar um comentário?").fill("Melhor pão de queijo do bairro!")
      await screenshot("survey-csat-nps.png")
      await submitAnswers()

      await focused(page.getByRole("heading", { name: "Obrigado pela resposta!" })).toBe(true)
      const review = page.getByRole("link", { name: /Avaliar/ })
      await visible(review).toBe(true)
      expect(await review.getAttribute("href")).toBe(REVIEW)
      await visible(page.getByText("O DDD e o número, por exemplo (11) 98765-4321.")).toBe(true)
      await expectAccessible("answered, review link and contact form")
      await screenshot("survey-review-contact.png")

      await page.getByLabel("Nome").fill("Maria Souza")
      await page.getByLabel("Telefone com DDD").fill("(11) 98765-4321")
      await page.getByRole("button", { name: "Enviar contato" }).click()
      await focused(page.getByRole("heading", { name: "Muito obrigado!" })).toBe(true)
      await visible(page.getByText(/o link de indicação chega nesse e-mail/)).toBe(true)
      await expectAccessible("thank-you page")

      const [stored] = await responsesOf(tenant, await questOf())
      expect(stored).toMatchObject({
        answers: { csat: 5, nps: 10, comment: "Melhor pão de queijo do bairro!" },
        band: "promoter",
        client_name: "Maria Souza",
        client_phone: "11987654321",
        cta_review_enabled: true,
        low_score: false
      })
    })

    it("a detractor answering with the keyboard alone gets no review link", async () => {
      await open(tenant)
      const before = (await responsesOf(tenant, await questOf())).length
      // Tab enters each radio group, the arrows move the choice, Space picks the focused one.
      await page.keyboard.press("Tab")
      await focused(page.getByRole("radio", { name: "1 estrela" })).toBe(true)
      await page.keyboard.press("Space")
      await page.keyboard.press("Tab")
      await focused(page.locator("#f-nps-0")).toBe(true)
      for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight")
      await page.keyboard.press("Tab")
      await page.keyboard.type("Demorou muito")
      await page.keyboard.press("Tab")
      await focused(page.getByRole("button", { name: "Enviar respostas" })).toBe(true)
      await page.keyboard.press("Enter")

      await focused(page.getByRole("heading", { name: "Obrigado pela resposta!" })).toBe(true)
      await visible(page.locator("#review")).toBe(false)
      await page.keyboard.press("Tab")
      await focused(page.getByLabel("Nome")).toBe(true)
      await page.getByRole("button", { name: "Pular" }).press("Enter")
      await visible(page.getByRole("heading", { name: "Muito obrigado!" })).toBe(true)
      await visible(page.locator("#referral")).toBe(false)

      const responses = await responsesOf(tenant, await questOf())
      expect(responses).toHaveLength(before + 1)
      expect(responses[0]).toMatchObject({
        answers: { csat: 1, nps: 3, comment: "Demorou muito" },
        band: "detractor",
        low_score: true,
        cta_review_enabled: false,
        client_phone: null
      })
    })

    it("shows the API's own messages: missing answers, then an invalid phone, and stores no contact", async () => {
      await open(tenant)
      const quest = await questOf()
      const before = (await responsesOf(tenant, quest)).length
      await submitAnswers()
      const answersError = page.locator("#answers-error")
      await textOf(answersError).toContain("response.csat: a required answer is missing")
      await textOf(answersError).toContain("response.nps: a required answer is missing")
      expect(await page.locator('fieldset[data-field="csat"]').getAttribute("class")).toContain("invalid")
      expect(await responsesOf(tenant, quest)).toHaveLength(before)

      await tap("csat", 4)
      await tap("nps", 8)
      // A double tap sends one response: the page's idempotency key and its busy state.
      await page.getByRole("button", { name: "Enviar respostas" }).dblclick()
      await visible(page.getByRole("heading", { name: "Obrigado pela resposta!" })).toBe(true)
      const responses = await responsesOf(tenant, quest)
      expect(responses).toHaveLength(before + 1)

      // Area code 23 does not exist; the message shown is the one the API gives for it.
      const phone = page.getByLabel("Telefone com DDD")
      await phone.fill("(23) 98765-4321")
      await page.getByRole("button", { name: "Enviar contato" }).click()
      const api = await call(server, `/api/v1/public/quests/${tenant.empresa.id_name}/${responses[0]!["id"]}/contact`, {
        method: "PATCH",
        body: { client_phone: "(23) 98765-4321" }
      })
      expect(api.status).toBe(400)
      await textOf(page.locator("#contact-error")).toBe(api.body.detail)
      expect(await phone.getAttribute("aria-invalid")).toBe("true")
      await focused(phone).toBe(true)
      await expectAccessible("contact form with an invalid phone")
      const [stored] = await responsesOf(tenant, quest)
      expect(stored).toMatchObject({ id: responses[0]!["id"], client_name: null, client_phone: null, contact_at: null })
    })
  })

  it("renders a custom survey's rating and text fields and submits them", async () => {
    const tenant = await createTenant(server)
    await updateSettings(server, tenant, { url_review_avaliation: REVIEW, logo_url: LOGO, primary_color: "#0f766e" })
    await rename(tenant, "Bistrô Verde")
    const quest = await createQuest(server, tenant, {
      name: "Nosso novo cardápio",
      description: "Três perguntas rápidas sobre os pratos da semana.",
      cta_review_on_promoter: true,
      research: {
        fields: [
          { id: "sabor", type: "rating", label: "Sabor dos pratos", required: true, min: 1, max: 5 },
          { id: "ambiente", type: "rating", label: "Ambiente, de 1 a 10", required: true, min: 1, max: 10 },
          { id: "recomenda", type: "rating", label: "Você nos recomendaria?", required: false, min: 0, max: 10 },
          { id: "sugestao", type: "text", label: "O que faltou no cardápio?", required: false }
        ]
      }
    })
    await open(tenant)
    expect(await questOf()).toBe(quest.id)
    await textOf(page.getByRole("heading", { level: 1 })).toBe("Nosso novo cardápio")
    expect(
      await page
        .getByRole("group", { name: /Sabor dos pratos/ })
        .getByRole("radio")
        .count()
    ).toBe(5)
    expect(
      await page
        .getByRole("group", { name: /Ambiente, de 1 a 10/ })
        .getByRole("radio")
        .count()
    ).toBe(10)
    expect(
      await page
        .getByRole("group", { name: /Você nos recomendaria/ })
        .getByRole("radio")
        .count()
    ).toBe(11)
    await expectAccessible("custom survey")

    await tap("sabor", 5)
    await tap("ambiente", 7)
    await tap("recomenda", 9)
    await page.getByLabel("O que faltou no cardápio?").fill("Opções veganas")
    await screenshot("survey-custom.png")
    await submitAnswers()
    // A promoter (CSAT-scale 5, NPS-scale 9) of a survey that offers the review link.
    await visible(page.getByRole("link", { name: /Avaliar/ })).toBe(true)
    expect(await page.getByRole("link", { name: /Avaliar/ }).getAttribute("href")).toBe(REVIEW)
    await page.getByRole("button", { name: "Pular" }).click()
    await focused(page.getByRole("heading", { name: "Muito obrigado!" })).toBe(true)

    const [stored] = await responsesOf(tenant, quest.id)
    expect(stored).toMatchObject({
      answers: { sabor: 5, ambiente: 7, recomenda: 9, sugestao: "Opções veganas" },
      cta_review_enabled: true,
      client_name: null
    })
  })

  it("shows what the database holds as text, never as markup", async () => {
    const tenant = await createTenant(server)
    const name = `Bar <b>"Zé"</b> & <script>alert(1)</script>`
    await rename(tenant, name)
    await createQuest(server, tenant, {
      name: "<i>Rápida</i>",
      research: {
        fields: [{ id: "nota", type: "rating", label: "<u>Nota</u> & ' \"", required: true, min: 1, max: 5 }]
      }
    })
    await open(tenant)
    expect(await page.locator(".store-name").textContent()).toBe(name)
    expect(await page.locator("h1").first().textContent()).toBe("<i>Rápida</i>")
    expect(await page.locator("legend").textContent()).toBe(`<u>Nota</u> & ' " (obrigatória)`)
    expect(await page.locator("main b, main i, main u, body script:not([nonce])").count()).toBe(0)
  })

  it("answers an unknown store and a store with no open survey with friendly 404 pages", async () => {
    const unknown = await page.goto(`${server.url}/s/loja-que-nao-existe`)
    expect(unknown?.status()).toBe(404)
    await textOf(page.getByRole("heading", { level: 1 })).toBe("Loja não encontrada")

    const tenant = await createTenant(server)
    const [survey] = (await call(server, "/api/v1/public/quests", { key: tenant.key })).body
    const paused = await call(server, `/api/v1/public/quests/${survey.id}`, {
      method: "PATCH",
      key: tenant.key,
      body: { active: false }
    })
    expect(paused.status).toBe(200)
    const none = await page.goto(`${server.url}/s/${tenant.empresa.id}`)
    expect(none?.status()).toBe(404)
    await textOf(page.getByRole("heading", { level: 1 })).toBe("Nenhuma pesquisa no momento")
    await expectAccessible("404 page")
  })
})
