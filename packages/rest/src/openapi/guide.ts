import { idempotencyKeyDescription } from "@fidelis/core"
import type { Json } from "./responses.js"

/* The reference's prose: how callers authenticate, and the guide that opens each document. */

export const API_KEY_SCHEMES: Json = {
  ApiKeyAuth: { type: "apiKey", in: "header", name: "X-API-Key" },
  BearerAuth: { type: "http", scheme: "bearer", description: "The same API key as `Authorization: Bearer <key>`" }
}

/** What the end-user API's document says differently: the access token, and the spec's pagination object. */
export const END_USER_GUIDE = {
  securitySchemes: {
    bearerAuth: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description: "`access_token` from /auth/register, /auth/login or /auth/refresh; valid one hour"
    }
  },
  authentication: `
Register or log in to get an \`access_token\` (a JWT, valid one hour) and a \`refresh_token\`. Send the access
token as \`Authorization: Bearer <token>\`. When it expires the API answers 401; call \`/auth/refresh\` with the
refresh token, which returns a new pair (each refresh token works once), and repeat the request.`.trim(),
  pagination: `
Lists take \`page\` (from 1) and \`limit\` and answer a \`pagination\` object with \`page\`, \`limit\`, \`total\`,
\`total_pages\`, \`has_next\` and \`has_prev\`.`.trim()
}

/** The reference page's opening: what every route shares, before the routes themselves. */
export const API_KEY_AUTHENTICATION = `
Send the empresa's API key in \`X-API-Key: <key>\` (or \`Authorization: Bearer <key>\`). A company key reaches
its own empresa; an admin key also reaches the administration API, and acts on one empresa's routes when the
request names it in \`Fidelis-Empresa: <empresa id>\`. The survey routes a respondent's page calls take no key.
A missing or wrong key is a 401, a key without the right scope or plan a 403.`.trim()

export const PAGE_PAGINATION = `
Lists take \`page\` (from 1) and \`per_page\` (1 to 100, default 20) and answer
\`{ data, total, page, pages, per_page }\`.`.trim()

export const guide = (idempotencyTtlSeconds: number, authentication: string, pagination: string) =>
  `
## Authentication

${authentication}

## Errors

Every error body is JSON with \`detail\` (what went wrong, for people), \`code\` (a stable machine code to branch
on, e.g. \`VALIDATION_FAILED\`, \`NOT_FOUND\`, \`INSUFFICIENT_POINTS\`) and \`request_id\` (also in the
\`X-Request-Id\` response header; quote it when reporting a problem). A 422 lists each invalid field with its
location (\`loc\`) and message (\`msg\`); a 409 refusal of a business rule carries its code in \`detail.code\`.

## Idempotency

Writes accept \`X-Idempotency-Key\`, a unique string per operation such as a UUID; send one whenever a request
may be retried. ${idempotencyKeyDescription(idempotencyTtlSeconds)}; a replay is marked \`Idempotent-Replayed: true\`.

## Rate limits

Each key has a budget of requests per minute (the public routes: each client address). Every answer carries
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (epoch seconds); past the budget
the answer is a 429 with \`Retry-After\` in seconds.

## Pagination

${pagination}
`.trim()
