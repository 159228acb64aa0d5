import type { OpenApiMeta } from "trpc-to-openapi"
import type { DomainError, Refusal } from "./errors.js"

/** Who may call a procedure: nobody in particular, a company key, or a platform admin. */
export type Scope = "public" | "empresa" | "admin"

/** The kinds of error a scope's own checks give (authentication, plan, rate limit) before any procedure runs. */
export const SCOPE_ERRORS: Record<Scope, ReadonlyArray<DomainError["_tag"]>> = {
  public: [],
  empresa: ["BadRequest", "Unauthenticated", "Forbidden", "RateLimited"],
  admin: ["BadRequest", "Unauthenticated", "Forbidden", "RateLimited"]
}

/**
 * Procedure metadata: the single source every adapter reads. REST reads `openapi`, MCP reads
 * `tool`, the CLI reads the router path and `openapi.summary`.
 */
export type ProcedureMeta = OpenApiMeta<{
  readonly scope?: Scope
  /** Accepts `X-Idempotency-Key`; the procedure wraps its effect in the idempotency service. */
  readonly idempotent?: boolean
  /** HTTP status of a success, when it is not 200 (e.g. 201 for a create). */
  readonly successStatus?: 200 | 201 | 202 | 204
  /** The refusals its program may give, set with `refuses(...)`, which holds the program to them. */
  readonly refusals?: ReadonlyArray<Refusal>
  /** Exposed as an MCP tool under this name. */
  readonly tool?: {
    readonly name: string
    /** Only admin-scope keys see it (management tools beyond the spec's 25). */
    readonly adminOnly?: boolean
    readonly readOnly?: boolean
    readonly destructive?: boolean
  }
}>
