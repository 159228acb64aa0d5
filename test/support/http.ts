// Imported outside vitest too (test/conformance/run.ts, bench): no vitest import here.
import type { TestServer } from "./server.js"

export interface ApiResponse<T = any> {
  readonly status: number
  readonly headers: Headers
  readonly body: T
}

export interface RequestOptions {
  readonly method?: string
  readonly key?: string
  readonly body?: unknown
  readonly headers?: Record<string, string>
  readonly signal?: AbortSignal
}

/** One HTTP call as an integrator makes it; JSON in, JSON (or text) out. */
export const call = async <T = any>(
  server: TestServer,
  path: string,
  options: RequestOptions = {}
): Promise<ApiResponse<T>> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== undefined) headers["x-api-key"] = options.key
  if (options.body !== undefined) headers["content-type"] ??= "application/json"
  const res = await fetch(`${server.url}${path}`, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
    ...(options.body !== undefined
      ? { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }
      : {})
  })
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: body as T }
}

/**
 * Waits out the end of a minute so a burst lands in one fixed window; returns how many requests
 * of `key`'s window the probe already used.
 */
export const startOfFreshWindow = async (target: TestServer, key: string) => {
  const probe = await call(target, "/api/v1/public/clients", { key })
  const secondsLeft = Number(probe.headers.get("x-ratelimit-reset")) - Date.now() / 1000
  if (secondsLeft > 20) return 1
  await new Promise((r) => setTimeout(r, (secondsLeft + 1) * 1000))
  return 0
}

let tenantCounter = 0

export interface Tenant {
  readonly empresa: { readonly id: string; readonly id_name: string; readonly name: string }
  readonly key: string
}

/** A fresh empresa with a company API key, made through the admin API. */
export const createTenant = async (server: TestServer, options: { apiAccess?: boolean } = {}): Promise<Tenant> => {
  const slug = `t${Date.now().toString(36)}${(tenantCounter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`
  const empresa = await call(server, "/api/v1/internal/empresas", {
    key: server.adminKey,
    body: { name: `Tenant ${slug}`, id_name: slug, api_access: options.apiAccess ?? true }
  })
  if (empresa.status !== 201) throw new Error(`create empresa: ${empresa.status} ${JSON.stringify(empresa.body)}`)
  const key = await call(server, `/api/v1/internal/empresas/${empresa.body.id}/api-keys`, {
    key: server.adminKey,
    body: { name: "test key", scope: "empresa" }
  })
  if (key.status !== 201) throw new Error(`create key: ${key.status} ${JSON.stringify(key.body)}`)
  return { empresa: empresa.body, key: key.body.key }
}

/** A client of the tenant, created through the company API. */
export const createClient = async (server: TestServer, tenant: Tenant, body: Record<string, unknown> = {}) => {
  const res = await call(server, "/api/v1/public/clients", { key: tenant.key, body: { nome: "Maria Teste", ...body } })
  if (res.status !== 201) throw new Error(`create client: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; nome: string; pontos: number }
}
