import { SqlClient } from "@effect/sql"
import { inTransaction } from "@fidelis/db"
import { Effect } from "effect"
import type { z } from "zod"
import { ApiKeys } from "./auth/service.js"
import { CreateClientInput } from "./clients/contracts.js"
import { Clients } from "./clients/service.js"
import { GenerateCouponInput } from "./coupons/contracts.js"
import { Coupons } from "./coupons/service.js"
import type { Empresa } from "./empresas/contracts.js"
import { Empresas } from "./empresas/service.js"
import type { CardId, ClientId, EmpresaId, UserId } from "./ids.js"
import { CreateProgramInput, IssueCardInput, StampCardInput } from "./loyalty/contracts.js"
import { LoyaltyPrograms } from "./loyalty/programs.js"
import { LoyaltyCards } from "./loyalty/service.js"
import { CreditPointsInput } from "./points/contracts.js"
import { Points } from "./points/service.js"
import { CreateProductInput } from "./products/contracts.js"
import { Products } from "./products/service.js"
import { Quests } from "./quests/service.js"
import { RedeemInput } from "./redemptions/contracts.js"
import { Redemptions } from "./redemptions/service.js"
import { CreateCampaignInput } from "./referrals/contracts.js"
import { ReferralCampaigns } from "./referrals/service.js"
import { CreateRewardInput } from "./rewards/contracts.js"
import { Rewards } from "./rewards/service.js"
import { span } from "./tracing.js"

/**
 * The demo tenant `npm start` creates on an empty embedded database: a small café with five weeks
 * of history, enough for every metric and the README's walkthrough to show something.
 *
 * Every write goes through the service the product writes it with (clients, points, coupons, stamp
 * cards, products, rewards, campaigns, the default survey, redemptions and their validation, the
 * referral a purchase completes), so the data is what the product makes and its rules hold:
 * balances never go below zero, a card completes at its goal, a claim opens the next card, a
 * referral pays its bonuses once. Three facts come from outside the empresa's reach and are written
 * as their flows leave them: the people's accounts (registered and verified in the end-user app, a
 * code given at registration), survey responses (the public page) and NFC-e invoices (a scan task,
 * whose points Points credits).
 *
 * History: the services stamp `now()`, so the story is told day by day, oldest first, and after
 * each day `settle(n)` moves what that day wrote back n days (see HISTORY). The whole seed is one
 * transaction, in which `now()` is one instant: everything not settled yet is at or after it.
 */

const PEOPLE = {
  ana: { nome: "Ana Souza", email: "ana.souza@example.com", telefone: "+55 11 91234-5678" },
  bruno: { nome: "Bruno Lima", email: "bruno.lima@example.com", telefone: "+55 21 99876-5432" },
  carla: { nome: "Carla Mendes", email: "carla.mendes@example.com" },
  diego: { nome: "Diego Alves" },
  elisa: { nome: "Elisa Costa", email: "elisa.costa@example.com" },
  fabio: { nome: "Fábio Rocha", email: "fabio.rocha@example.com" },
  gabriela: { nome: "Gabriela Dias", email: "gabriela.dias@example.com", telefone: "+55 11 98765-4321" },
  hugo: { nome: "Hugo Melo", email: "hugo.melo@example.com" },
  iara: { nome: "Iara Santos", email: "iara.santos@example.com" },
  joao: { nome: "João Pereira", telefone: "+55 31 99123-4567" }
} satisfies Record<string, z.input<typeof CreateClientInput>>
type Person = keyof typeof PEOPLE

/**
 * The time columns each table's rows carry. `at`: instants something happened, each moved when it
 * is at or after the transaction's now() (not settled yet). `follows`: deadlines set relative to
 * creation (a coupon's expiry), moved with `created_at`. `scopeOf` selects the demo empresa's rows.
 */
const HISTORY: ReadonlyArray<{ table: string; at: ReadonlyArray<string>; follows?: ReadonlyArray<string> }> = [
  { table: "empresas", at: ["created_at", "updated_at"] },
  {
    table: "users",
    at: ["created_at", "updated_at", "registered_at", "email_verified_at", "referral_completed_at"]
  },
  { table: "clients", at: ["created_at", "updated_at"] },
  { table: "points_ledger", at: ["created_at"] },
  { table: "activity_events", at: ["created_at"] },
  { table: "products", at: ["created_at", "updated_at"] },
  { table: "rewards", at: ["created_at", "updated_at"] },
  { table: "loyalty_programs", at: ["created_at", "updated_at"] },
  { table: "loyalty_cards", at: ["created_at", "updated_at", "completed_at", "claimed_at"] },
  { table: "loyalty_stamps", at: ["created_at"] },
  { table: "coupons", at: ["created_at", "used_at", "cancelled_at"], follows: ["expires_at"] },
  { table: "redemptions", at: ["created_at", "validated_at", "cancelled_at"], follows: ["expires_at"] },
  { table: "referral_campaigns", at: ["created_at", "updated_at"] },
  { table: "referrals", at: ["created_at", "completed_at"] },
  { table: "quests", at: ["created_at", "updated_at"] },
  { table: "quest_responses", at: ["created_at", "contact_at"] },
  { table: "nfce_invoices", at: ["created_at", "completed_at", "issued_at"] }
]

const scopeOf = (table: string) =>
  table === "empresas"
    ? "id = $1"
    : table === "users"
      ? "id IN (SELECT user_id FROM clients WHERE empresa_id = $1)"
      : "empresa_id = $1"

/** Moves `column` back `$2` days when `when` (itself, or the row's creation) is not settled yet. */
const moved = (column: string, when: string) =>
  `${column} = CASE WHEN ${when} >= now() THEN ${column} - make_interval(days => $2) ELSE ${column} END`

/** One statement that moves every unsettled instant of the demo empresa (`$1`) back by `$2` days. */
const SETTLE = `WITH ${HISTORY.map(({ table, at, follows = [] }, i) => {
  const set = [...at.map((c) => moved(c, c)), ...follows.map((c) => moved(c, "created_at"))].join(", ")
  const unsettled = at.map((c) => `${c} >= now()`).join(" OR ")
  return `s${i} AS (UPDATE ${table} SET ${set} WHERE ${scopeOf(table)} AND (${unsettled}) RETURNING 1)`
}).join(",\n")}
SELECT 1`

/** Parses a literal through the procedure's own input schema: defaults and normalization apply. */
const input = <S extends z.ZodType>(schema: S, value: z.input<S>): z.output<S> => schema.parse(value)

/** A 44-digit NFC-e access key (model 65) with a valid mod-11 check digit; the issuer is fictitious. */
const accessKey = (issued: Date, number: number) => {
  const yymm = issued.toISOString().slice(2, 7).replace("-", "")
  const series = `65001${String(number).padStart(9, "0")}1${String(number * 7919).padStart(8, "0")}`
  const body = `35${yymm}12345678000195${series}`
  const sum = [...body].toReversed().reduce((acc, digit, i) => acc + Number(digit) * (2 + (i % 8)), 0)
  const rest = sum % 11
  return `${body}${rest < 2 ? 0 : 11 - rest}`
}

const DAY_MS = 24 * 60 * 60 * 1000

/** What the server prints after the first start. */
export interface DemoTenant {
  readonly empresa: Empresa
  /** A company API key, shown only now. */
  readonly key: string
  /** A client with history on every feature, for the printed examples. */
  readonly clientId: ClientId
}

const seed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // Day 40: the café opens on Fidelis.
  const empresa = yield* Empresas.create({
    name: "Café Fidelis (demo)",
    id_name: "demo",
    plan: "demo",
    api_access: true,
    settings: { timezone: "America/Sao_Paulo", point_value: 0.05, points_per_real: 1 }
  })
  const id: EmpresaId = empresa.id
  const settle = (daysAgo: number) => sql.unsafe(SETTLE, [id, daysAgo])
  const client = {} as Record<Person, ClientId>
  const welcome = (...people: ReadonlyArray<Person>) =>
    Effect.forEach(people, (who) =>
      Effect.map(Clients.create(id, input(CreateClientInput, PEOPLE[who])), (c) => (client[who] = c.id))
    )
  const credit = (who: Person, points: number, description: string, source = "purchase") =>
    Points.credit(id, input(CreditPointsInput, { client_id: client[who], points, source, description }))

  const product = (name: string, points_cost: number, price: number, category: string, stock?: number) =>
    Products.create(id, input(CreateProductInput, { name, points_cost, price, category, stock }))
  const espresso = yield* product("Café expresso", 60, 6.5, "Bebidas")
  const cheeseBread = yield* product("Pão de queijo", 40, 5, "Salgados")
  yield* product("Fatia de bolo de cenoura", 80, 9.9, "Doces")
  const mug = yield* product("Caneca Fidelis", 300, 39.9, "Loja", 20)
  const espressoReward = yield* Rewards.create(id, input(CreateRewardInput, { product_id: espresso.id }))
  const mugReward = yield* Rewards.create(
    id,
    input(CreateRewardInput, { product_id: mug.id, stock: 10, per_user_limit: 1 })
  )
  const program = yield* LoyaltyPrograms.create(
    id,
    input(CreateProgramInput, {
      name: "Cartão Café",
      stamps_required: 5,
      reward_description: "Um café expresso grátis"
    })
  )
  yield* ReferralCampaigns.create(
    id,
    input(CreateCampaignInput, {
      name: "Indique e ganhe",
      referrer_bonus: 50,
      referred_bonus: 25,
      starts_at: new Date(Date.now() - 40 * DAY_MS).toISOString()
    })
  )
  const survey = yield* Quests.ensureDefault(id)
  yield* welcome("ana", "bruno", "carla", "diego")

  const cards = {} as Record<Person, CardId>
  const issue = (who: Person) =>
    Effect.map(
      LoyaltyCards.issue(id, input(IssueCardInput, { client_id: client[who], program_id: program.id })),
      (card) => (cards[who] = card.id)
    )
  const stamp = (who: Person, quantity = 1) =>
    LoyaltyCards.stamp(id, input(StampCardInput, { card_id: cards[who], quantity }))
  const claim = (who: Person) => Effect.map(LoyaltyCards.claim(id, cards[who]), (r) => (cards[who] = r.next_card!.id))

  const coupon = (who: Person, offer: { points: number } | { product_id: string }) =>
    Coupons.generate(id, input(GenerateCouponInput, { client_id: client[who], ...offer }))

  /** The referral code of `who`'s account, which a friend gives at registration. */
  const codeOf = (who: Person) => sql`(
    SELECT r.referral_code FROM users r JOIN clients rc ON rc.user_id = r.id
    WHERE rc.empresa_id = ${id} AND rc.id = ${client[who]})`
  /**
   * The person's account in the end-user app, registered (with `referrer`'s code, if any) and
   * verified, as the account flow leaves it: then the store's client shows in their wallet, they
   * redeem with it, and their first purchase completes the referral. Demo accounts have no password
   * (a stored hash in no known format matches none), so nobody logs in as them.
   */
  const account = (who: Person, referrer?: Person) =>
    sql<{ id: UserId }>`
      UPDATE users u SET password_hash = 'demo$no-password', registered_at = now(), email_verified_at = now(),
             pending_referral_code = ${referrer === undefined ? null : codeOf(referrer)}
      FROM clients c WHERE c.empresa_id = ${id} AND c.id = ${client[who]} AND u.id = c.user_id
      RETURNING u.id`.pipe(Effect.map(([user]) => user!.id))
  const users = {} as Record<Person, UserId>
  const join = (who: Person, referrer?: Person) => Effect.map(account(who, referrer), (user) => (users[who] = user))
  /** Someone registers with a friend's code and becomes a client; their first purchase completes it. */
  const refer = (referrer: Person, referred: Person) =>
    Effect.gen(function* () {
      yield* welcome(referred)
      yield* join(referred, referrer)
    })

  /** The end-user app's redeem, as the person's own call; the code is what the counter validates. */
  const redeem = (who: Person, reward: typeof mugReward) =>
    Effect.map(
      Redemptions.redeem(users[who], input(RedeemInput, { reward_uid: reward.id })),
      (result) => result.redemption.code
    )
  const validate = (code: string) => Redemptions.validate(id, code)

  let invoices = 0
  /** A scanned NFC-e as issue 16's task leaves it; a completed one credits its points through Points. */
  const invoice = (who: Person, daysAgo: number, status: "completed" | "failed" | "processing", valor?: number) =>
    Effect.gen(function* () {
      const key = accessKey(new Date(Date.now() - daysAgo * DAY_MS), 4100 + ++invoices)
      const points = status === "completed" ? Math.floor(valor!) : null
      const message = status === "failed" ? "SEFAZ did not find this invoice" : null
      yield* sql`
        INSERT INTO nfce_invoices (empresa_id, access_key, user_id, client_id, status, progress, message, valor_total,
                                   items_count, points_credited, issued_at, completed_at)
        SELECT ${id}, ${key}, user_id, id, ${status}, ${status === "processing" ? 40 : 100}, ${message},
               ${status === "completed" ? valor! : null}, ${status === "completed" ? 3 : null}, ${points},
               now() - interval '10 minutes', ${status === "completed" ? sql`now()` : null}
        FROM clients WHERE empresa_id = ${id} AND id = ${client[who]}`
      if (points !== null) yield* credit(who, points, `NFC-e ${key.slice(25, 34)}`, "nfce")
    })

  /**
   * A survey answer as issue 13's public page will store it. The empresa is alerted of a low score
   * (CSAT <= 2 or NPS <= 6); the flag records what that flow will do.
   */
  const answer = (csat: number, nps: number, extra: { comment?: string; name?: string; phone?: string } = {}) =>
    sql`
      INSERT INTO quest_responses (empresa_id, quest_id, answers, csat, nps, client_name, client_phone, contact_at,
                                   low_score_alert_sent)
      VALUES (${id}, ${survey.id}, ${JSON.stringify({ csat, nps, comment: extra.comment })}::jsonb,
              ${csat}, ${nps}, ${extra.name ?? null}, ${extra.phone ?? null},
              ${extra.name || extra.phone ? sql`now()` : null}, ${csat <= 2 || nps <= 6})`

  // Ana, Bruno and Carla use the app.
  yield* Effect.forEach(["ana", "bruno", "carla"] as const, (who) => join(who))
  yield* settle(40)

  // Day 38: Diego's coupon, never used, expires 30 days later (8 days ago).
  yield* credit("diego", 60, "Compra de R$ 60,00")
  yield* coupon("diego", { points: 60 })
  yield* settle(38)

  yield* credit("ana", 85, "Compra de R$ 85,00")
  yield* credit("bruno", 45, "Compra de R$ 45,00")
  yield* credit("carla", 150, "Compra de R$ 150,00")
  yield* Effect.forEach(["ana", "bruno", "carla"] as const, issue)
  yield* stamp("ana")
  yield* stamp("bruno")
  yield* stamp("carla", 2)
  yield* settle(27)

  yield* refer("ana", "elisa")
  yield* stamp("ana")
  yield* answer(5, 10, { comment: "Melhor pão de queijo do bairro!", name: "Ana" })
  yield* answer(4, 8)
  yield* settle(25)

  yield* credit("elisa", 32, "Compra de R$ 32,00")
  yield* invoice("ana", 24, "completed", 45.9)
  yield* issue("elisa")
  yield* stamp("elisa")
  yield* settle(24)

  yield* credit("carla", 60, "Compra de R$ 60,00")
  yield* stamp("bruno")
  yield* stamp("carla", 2)
  yield* answer(5, 9)
  yield* answer(2, 4, { comment: "Demorou muito para ser atendido.", phone: "11987654321" })
  yield* settle(21)

  yield* refer("ana", "fabio")
  yield* settle(19)

  const anaCoupon = yield* coupon("ana", { points: 100 })
  yield* invoice("bruno", 18, "completed", 82.4)
  yield* answer(4, 7)
  yield* settle(18)

  yield* Coupons.redeem(id, anaCoupon.uid)
  yield* stamp("carla")
  yield* stamp("ana")
  yield* settle(16)

  yield* invoice("carla", 14, "completed", 118.3)
  yield* validate(yield* redeem("carla", mugReward))
  yield* settle(14)

  yield* welcome("iara")
  yield* credit("iara", 40, "Compra de R$ 40,00")
  yield* coupon("bruno", { product_id: cheeseBread.id })
  yield* settle(12)

  yield* stamp("ana")
  yield* stamp("bruno")
  yield* invoice("diego", 10, "failed")
  yield* answer(5, 10, { name: "Bruno", phone: "21998765432" })
  yield* answer(3, 6)
  yield* settle(10)

  yield* refer("bruno", "gabriela")
  const brunoCoupon = yield* coupon("bruno", { points: 40 })
  yield* settle(9)

  yield* Coupons.cancel(id, brunoCoupon.uid)
  yield* settle(8)

  yield* credit("gabriela", 55, "Compra de R$ 55,00")
  yield* stamp("ana")
  yield* claim("ana")
  yield* settle(7)

  yield* issue("iara")
  yield* stamp("iara")
  yield* stamp("elisa")
  yield* invoice("gabriela", 6, "completed", 64)
  yield* settle(6)

  yield* stamp("bruno")
  yield* settle(5)

  yield* stamp("ana")
  yield* welcome("joao")
  yield* credit("joao", 25, "Compra de R$ 25,00")
  yield* answer(5, 9, { comment: "Atendimento excelente." })
  yield* answer(4, 9)
  yield* settle(4)

  yield* coupon("iara", { points: 40 })
  yield* invoice("gabriela", 3, "completed", 37.5)
  yield* settle(3)

  yield* redeem("ana", espressoReward)
  yield* refer("carla", "hugo")
  yield* answer(1, 2, { comment: "Café frio.", name: "Hugo" })
  yield* answer(5, 10)
  yield* settle(2)

  yield* stamp("ana")
  yield* stamp("iara")
  yield* credit("joao", 18, "Compra de R$ 18,00")
  yield* credit("diego", 22, "Compra de R$ 22,00")
  yield* answer(4, 8, { name: "João" })
  yield* settle(1)

  // Today, at the time of the first start.
  yield* credit("elisa", 12, "Compra de R$ 12,00")
  yield* invoice("joao", 0, "processing")
  yield* answer(5, 10)

  // Each client's latest event was recorded as it was written (now); the trigger only moves it
  // forward, so set it from the settled timeline.
  yield* sql`
    UPDATE client_activity a SET last_active_at = e.last
    FROM (SELECT client_id, max(created_at) AS last FROM activity_events WHERE empresa_id = ${id} GROUP BY client_id) e
    WHERE a.empresa_id = ${id} AND a.client_id = e.client_id`

  const key = yield* ApiKeys.create(id, { name: "Demo key", scope: "empresa" })
  return { empresa, key: key.key, clientId: client.ana } satisfies DemoTenant
})

/**
 * On an empty database, creates the demo tenant in one transaction, so an interrupted first start
 * leaves nothing half-made and the next start seeds it again. Returns its key (shown once), or
 * nothing when the database already has data: a second start never adds to it.
 */
export const seedDemoIfEmpty = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* inTransaction(sql)(
    Effect.gen(function* () {
      const [existing] = yield* sql<{ any: boolean }>`SELECT EXISTS (SELECT 1 FROM empresas) AS any`
      return existing?.any ? undefined : yield* seed
    })
  )
}).pipe(span("demo.seed"))

/** Readiness: the database answers. */
export const databaseReady = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(Effect.asVoid)
