import { lookup } from "node:dns/promises"
import http from "node:http"
import https from "node:https"
import type { LookupFunction } from "node:net"
import { Effect } from "effect"
import ipaddr from "ipaddr.js"
import type { DecodedQr, InvoiceOutcome } from "./contracts.js"
import type { InvoiceFetcher } from "./gateway.js"
import { ALLOW_LIST, isOfficialHost, type AllowList } from "./hosts.js"
import { parseConsultation } from "./page.js"

/** Where a host name points: every address, so one private answer among public ones is still seen. */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<string>>

export interface HttpGatewayOptions {
  readonly allowList?: AllowList
  /** DNS by default; tests point allow-listed names at a local server. */
  readonly resolve?: Resolver
  /** Tests only: the port to connect to instead of the URL's, so a local server can stand in for port 80. */
  readonly portOverride?: number
  /** Tests only: loopback addresses pass (every other private range stays refused). */
  readonly allowLoopback?: boolean
  readonly maxHops?: number
  readonly connectTimeoutMs?: number
  /** From the connection to the body's last byte: a page trickling in slowly is cut off here. */
  readonly readTimeoutMs?: number
  readonly maxBodyBytes?: number
}

/** economizaai's GenericQrPortalAdapter limits (nfce.md section 4), and 2 MB, past any real DANFE page. */
const DEFAULTS = { maxHops: 4, connectTimeoutMs: 10_000, readTimeoutMs: 30_000, maxBodyBytes: 2 * 1024 * 1024 }

const defaultResolve: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)

/** Public unicast only: private, loopback, link-local, CGNAT, multicast, unspecified, reserved are refused. */
const isPublic = (address: string, allowLoopback: boolean) => {
  if (!ipaddr.isValid(address)) return false
  // process() turns an IPv4-mapped IPv6 address (::ffff:10.0.0.1) into the IPv4 address it carries.
  const range = ipaddr.process(address).range()
  return range === "unicast" || (allowLoopback && range === "loopback")
}

interface Response {
  readonly status: number
  readonly location: string | undefined
  readonly contentType: string
  readonly body: Buffer
}

/** Why a fetch stopped short; each maps to an outcome. */
class Stop extends Error {
  constructor(readonly outcome: InvoiceOutcome) {
    super(outcome.status)
  }
}
const blocked = (detail: string) => new Stop({ status: "blocked", detail })
const unavailable = (detail: string) => new Stop({ status: "unavailable", detail })

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/**
 * The state's consultation page over HTTP, hardened against being turned on ourselves (SSRF): only
 * hosts on the allow-list of the key's own state, every redirect hop checked against that same list,
 * each name resolved here and refused if any address is not public, the connection made to the
 * address checked (not resolved again), and bounded hops, time and size.
 */
export const httpFetcher = (options: HttpGatewayOptions = {}): InvoiceFetcher => {
  const allowList = options.allowList ?? ALLOW_LIST
  const resolve = options.resolve ?? defaultResolve
  const limits = { ...DEFAULTS, ...options }

  const get = async (url: URL, signal: AbortSignal): Promise<Response> => {
    const addresses = await resolve(url.hostname).catch(() => {
      throw unavailable(`${url.hostname} did not resolve`)
    })
    const address = addresses[0]
    if (address === undefined) throw unavailable(`${url.hostname} did not resolve`)
    const refused = addresses.find((candidate) => !isPublic(candidate, options.allowLoopback ?? false))
    if (refused !== undefined) throw blocked(`${url.hostname} resolves to ${refused}, which is not a public address`)
    const family = ipaddr.parse(address).kind() === "ipv6" ? 6 : 4
    const pinned: LookupFunction = (_hostname, lookupOptions, callback) =>
      lookupOptions.all ? callback(null, [{ address, family }]) : callback(null, address, family)
    const client = url.protocol === "https:" ? https : http
    return new Promise<Response>((resolvePromise, reject) => {
      const request = client.request(url, {
        lookup: pinned,
        ...(options.portOverride === undefined ? {} : { port: options.portOverride }),
        signal,
        headers: { accept: "text/html,application/xhtml+xml,application/xml", "accept-encoding": "identity" }
      })
      let readTimer: NodeJS.Timeout | undefined
      let settled = false
      const settle = (finish: () => void) => {
        if (settled) return
        settled = true
        clearTimeout(connectTimer)
        clearTimeout(readTimer)
        finish()
      }
      const fail = (stop: Stop) => {
        settle(() => reject(stop))
        request.destroy()
      }
      const connectTimer = setTimeout(
        () => fail(unavailable(`${url.host} did not connect in time`)),
        limits.connectTimeoutMs
      )
      request.on("socket", (socket) => {
        socket.once(url.protocol === "https:" ? "secureConnect" : "connect", () => {
          clearTimeout(connectTimer)
          readTimer = setTimeout(() => fail(unavailable(`${url.host} answered too slowly`)), limits.readTimeoutMs)
        })
      })
      request.on("error", (error) => fail(unavailable(`${url.host}: ${error.message}`)))
      request.on("response", (response) => {
        const chunks: Array<Buffer> = []
        let size = 0
        response.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size > limits.maxBodyBytes) fail(blocked(`${url.host} sent more than ${limits.maxBodyBytes} bytes`))
          else chunks.push(chunk)
        })
        response.on("error", (error) => fail(unavailable(`${url.host}: ${error.message}`)))
        response.on("end", () =>
          settle(() =>
            resolvePromise({
              status: response.statusCode ?? 0,
              location: response.headers.location,
              contentType: response.headers["content-type"] ?? "",
              body: Buffer.concat(chunks)
            })
          )
        )
      })
      request.end()
    })
  }

  const follow = async (invoice: DecodedQr, signal: AbortSignal): Promise<InvoiceOutcome> => {
    let url = new URL(invoice.url)
    for (let hop = 0; ; hop++) {
      const response = await get(url, signal)
      if (REDIRECTS.has(response.status) && response.location !== undefined) {
        if (hop >= limits.maxHops) throw blocked(`More than ${limits.maxHops} redirects`)
        const next = new URL(response.location, url)
        const web = next.protocol === "http:" || next.protocol === "https:"
        if (!web || !isOfficialHost(allowList, invoice.uf, next, invoice.tp_amb)) {
          throw blocked(`${url.host} redirected to ${next.host}, which is not an official host of ${invoice.uf}`)
        }
        url = next
        continue
      }
      return outcomeOf(response)
    }
  }

  return (invoice) => {
    if (allowList.states[invoice.uf].captcha) {
      return Effect.succeed<InvoiceOutcome>({
        status: "captcha_required",
        detail: `${invoice.uf}'s consultation page asks people to solve a captcha, so it cannot be read for them`
      })
    }
    return Effect.promise((signal) =>
      follow(invoice, signal).catch((error: unknown) =>
        error instanceof Stop ? error.outcome : ({ status: "unavailable", detail: String(error) } as const)
      )
    )
  }
}

/** The charset the response declares (RO serves windows-1252), UTF-8 otherwise. */
const textOf = (response: Response) => {
  const charset = /charset=([^;\s]+)/i.exec(response.contentType)?.[1] ?? "utf-8"
  try {
    return new TextDecoder(charset).decode(response.body)
  } catch {
    return new TextDecoder().decode(response.body)
  }
}

const outcomeOf = (response: Response): InvoiceOutcome => {
  const { status } = response
  if (status === 404 || status === 410) return { status: "not_found", detail: `The state's page answered ${status}` }
  if (status === 401 || status === 403) return { status: "blocked", detail: `The state's page answered ${status}` }
  if (status !== 200) return { status: "unavailable", detail: `The state's page answered ${status}` }
  return parseConsultation(textOf(response))
}
