import type { OpenApiMeta } from "trpc-to-openapi"
import type { DomainError, Refusal } from "./errors.js"
import type { TeamRole } from "./roles.js"

/** What a repeated `X-Idempotency-Key` gets: the first result again, or a 409. */
export type IdempotencyMode = "replay" | "reject"

/**
 * Who may call a procedure: nobody in particular, a company key, a platform admin, an end user's
 * bearer access token (`user`), or anyone on the end-user API's routes that take no token
 * (`account`: register, login, refresh, email links).
 */
export type Scope = "public" | "empresa" | "admin" | "user" | "account"

/** The end-user API's scopes: REST under `/api/v1` only, never MCP tools or CLI commands (API keys' surfaces). */
export const END_USER_SCOPES: ReadonlySet<Scope> = new Set<Scope>(["user", "account"])

/** The kinds of error a scope's own checks give (authentication, plan, rate limit) before any procedure runs. */
export const SCOPE_ERRORS: Record<Scope, ReadonlyArray<DomainError["_tag"]>> = {
  public: ["RateLimited"],
  empresa: ["BadRequest", "Unauthenticated", "Forbidden", "RateLimited"],
  admin: ["BadRequest", "Unauthenticated", "Forbidden", "RateLimited"],
  user: ["Unauthenticated", "RateLimited"],
  account: ["Unauthenticated", "RateLimited"]
}

/**
 * What a procedure's REST answer is when it is not its output as JSON: a 302 to the output's
 * `location` (RedirectTo), an HTML page (HtmlPage), or a file of this type (FileBody). A link that
 * can expire answers, once it has, a page with 410 Gone instead; `expired` describes that page.
 */
export type ResponseKind =
  | { readonly kind: "redirect" | "html"; readonly expired?: string }
  | { readonly kind: "file"; readonly contentType: string }

/**
 * Procedure metadata: the single source every adapter reads. REST reads `openapi`, MCP reads
 * `tool`, the CLI reads the router path and `openapi.summary`.
 */
export type ProcedureMeta = OpenApiMeta<{
  readonly scope?: Scope
  /**
   * Accepts `X-Idempotency-Key`. `replay`: a retry with the same key and input gets the first
   * result (the company API's writes, through the idempotency service); `reject`: a second request
   * with the same key is refused with 409 (the public survey submission, spec 4.3).
   */
  readonly idempotent?: IdempotencyMode
  /** HTTP status of a success, when it is not 200 (e.g. 201 for a create). */
  readonly successStatus?: 200 | 201 | 202 | 204
  /**
   * Where a 201's created resource lives: its path under the API's base, each `{field}` filled from
   * the output (`/clients/{id}`). REST answers it as `Location`. Absent where the resource has no path
   * of its own (a stamp card, a survey response, a redemption: their ids travel in the body).
   */
  readonly location?: `/${string}`
  /** The refusals its program may give, set with `refuses(...)`, which holds the program to them. */
  readonly refusals?: ReadonlyArray<Refusal>
  /** A staff route of the end-user API (`staffProcedure`): the lowest team role that may call it (403 below). */
  readonly staffRole?: TeamRole
  /**
   * false: refused with 400 in a request that carries other calls (a tRPC batch), so each call is a
   * request of its own for the per-request budgets and the login throttle (the account routes).
   */
  readonly batchable?: false
  /** A public route counted per client IP (429 with Retry-After past its budget). */
  readonly rateLimit?: "ip"
  /** How REST serves a success that is not JSON (tracking pixel, click redirect, unsubscribe page). */
  readonly response?: ResponseKind
  /**
   * Path parameters that are credentials (an email link's token): the access log writes `:name` in
   * their place, so a copy of the log opens nothing.
   */
  readonly secretParams?: ReadonlyArray<string>
  /** Exposed as an MCP tool under this name. */
  readonly tool?: {
    readonly name: string
    /** Only admin-scope keys see it (management tools beyond the spec's 25). */
    readonly adminOnly?: boolean
    readonly readOnly?: boolean
    /** It removes or cancels something (MCP destructiveHint). */
    readonly destructive?: boolean
    /**
     * The same call again, without an idempotency key, changes nothing more (MCP idempotentHint):
     * an update to given values, using a coupon. Reads always are; a credit or a create never is.
     */
    readonly retrySafe?: boolean
  }
}>

/** What each area (OpenAPI tag, MCP instructions' grouping) covers, in the order a reference lists them. */
export const AREAS: Readonly<Record<string, string>> = {
  Clients: "The empresa's customers: create, find, import in bulk, and each one's timeline and behaviour.",
  Points: "Points balances and credits; purchases earn points at the empresa's rate.",
  Coupons: "Coupons bought with points for a product, then used once at the counter or cancelled (points refunded).",
  "Loyalty cards": "Stamp-card programs and the cards issued under them: stamp on each visit, claim the reward.",
  Products: "What coupons are generated for: price in points, stock, active or not.",
  Rewards: "Rewards a client can earn: a product or a discount, with the points or stamps it costs.",
  Referrals: "Referral campaigns: what the referrer and the new client each earn.",
  Quests: "Surveys (CSAT, NPS) the empresa runs, and the responses they collected.",
  "Public surveys": "What a respondent's survey page calls: no API key, counted per client address.",
  Metrics: "Reports over a period: overview, loyalty cards, referrals, quests, NFC-e and one client's behaviour.",
  "NFC-e": "Purchases read from Brazilian electronic invoices (NFC-e).",
  Email: "Links in the emails the platform sends: open pixel, tracked clicks and unsubscribe.",
  Empresas: "The companies on the platform, their plans and settings.",
  "API keys": "Keys of an empresa: create (shown once), list and revoke.",
  "Email outbox": "Emails queued for an empresa: send a test, follow delivery.",
  Authentication:
    "A person's account: register, log in, refresh and end the session, verify the email, reset the password.",
  Users: "The signed-in person's profile and figures across every store.",
  "Store profile": "What people see of the empresa in the app: description, address, contacts, hours, time zone.",
  Stores: "The stores a person can collect points at, with their opening hours and whether they are open now.",
  Wallets: "The person's balances at each store: points, cashback, earned and spent, from the ledger.",
  Timeline: "Everything that happened to the person's points and rewards, across every store.",
  Team: "The people who work for the empresa and their roles: operator, manager, admin.",
  Redemptions: "Rewards taken with points: a code the counter validates, or cancels with the points returned.",
  Cart: "Products collected in one cart per store and paid with points at checkout, with an optional coupon."
}
