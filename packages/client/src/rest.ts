import createClient from "openapi-fetch"
import type { paths } from "./generated/openapi.js"

export type { components, operations, paths } from "./generated/openapi.js"

export interface FidelisRestClientOptions {
  /** The server's base URL, e.g. `http://localhost:3000`. */
  readonly baseUrl: string
  readonly apiKey: string
  readonly fetch?: typeof globalThis.fetch
}

/** The company API (`/api/v1/public`), typed from its OpenAPI document by openapi-typescript. */
export const createFidelisRestClient = ({ baseUrl, apiKey, fetch }: FidelisRestClientOptions) =>
  createClient<paths>({
    baseUrl: `${baseUrl.replace(/\/+$/, "")}/api/v1/public`,
    headers: { "x-api-key": apiKey },
    ...(fetch ? { fetch } : {})
  })

export type FidelisRestClient = ReturnType<typeof createFidelisRestClient>
