import { z } from "zod"
import { Uf } from "./contracts.js"
import data from "./hosts.json" with { type: "json" }

/** A DNS name with an optional port; a name must end in letters, so no IP literal can enter the list. */
const HostEntry = z
  .string()
  .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}(:[0-9]{1,5})?$/, "a lower-case host name, optionally with :port")

const StateHosts = z.strictObject({
  production: z.array(HostEntry).min(1),
  homologation: z.array(HostEntry),
  captcha: z.boolean()
})

/** hosts.json: data with an owner and its sources, checked when the module loads so a bad edit fails at start. */
export const AllowList = z.strictObject({
  about: z.string(),
  owner: z.string().min(1),
  how_to_update: z.string().min(1),
  sources: z.array(z.string()).min(1),
  reviewed: z.string(),
  states: z.record(Uf, StateHosts)
})
export type AllowList = z.infer<typeof AllowList>

export const ALLOW_LIST: AllowList = AllowList.parse(data)

const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "https:": "443" }

/**
 * Whether a URL's host and port are an official consultation host of this state. A listed name
 * without a port allows only its scheme's default port (PE's 444 is listed as such); homologation
 * hosts count only for test invoices.
 */
export const isOfficialHost = (list: AllowList, uf: Uf, url: URL, tpAmb: 1 | 2): boolean => {
  const port = url.port || DEFAULT_PORTS[url.protocol]
  const state = list.states[uf]
  const entries = tpAmb === 2 ? [...state.production, ...state.homologation] : state.production
  return entries.some((entry) => {
    const [name, listedPort] = entry.split(":")
    return name === url.hostname && (listedPort ?? DEFAULT_PORTS[url.protocol]) === port
  })
}

/** Whether a host name is on any state's list: a link there without invoice data is a damaged QR, not an ad. */
export const isAnyStateHost = (list: AllowList, hostname: string): boolean =>
  Object.values(list.states).some((state) =>
    [...state.production, ...state.homologation].some((entry) => entry.split(":")[0] === hostname)
  )
