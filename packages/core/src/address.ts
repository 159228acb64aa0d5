import { BlockList, isIP } from "node:net"

/**
 * Who is calling a public route, for its per-address budget. The TCP peer is the client unless it
 * is a proxy listed in FIDELIS_TRUSTED_PROXIES; then `X-Forwarded-For` is read from the right (each
 * proxy appends the address it saw), past every trusted hop, and the first other address is the
 * client. Entries left of it are whatever the client wrote, so they are never believed.
 */

/** The proxies FIDELIS_TRUSTED_PROXIES lists (addresses and CIDR ranges, IPv4 or IPv6). */
export interface TrustedProxies {
  readonly entries: ReadonlyArray<string>
  readonly list: BlockList
}

const familyOf = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4")

/** An address as a socket or a proxy writes it, without port, brackets or the IPv4-mapped prefix. */
const plainAddress = (raw: string): string | undefined => {
  let address = raw.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address)
  if (bracketed !== null) address = bracketed[1]!
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"))
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped !== null) address = mapped[1]!
  // A link-local zone (fe80::1%eth0) names the interface, not the client.
  address = address.replace(/%.*$/, "")
  return isIP(address) === 0 ? undefined : address.toLowerCase()
}

/**
 * Parses FIDELIS_TRUSTED_PROXIES: comma-separated addresses or CIDR ranges, e.g.
 * `10.0.0.0/8, 127.0.0.1, ::1`. Empty: no proxy is trusted. A wrong entry is an error message.
 */
export const parseTrustedProxies = (value: string): TrustedProxies | string => {
  const entries = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
  const list = new BlockList()
  for (const entry of entries) {
    const [address = "", prefix, ...rest] = entry.split("/")
    const family = isIP(address)
    const bits = prefix === undefined ? undefined : Number(prefix)
    const maxBits = family === 6 ? 128 : 32
    if (
      family === 0 ||
      rest.length > 0 ||
      (bits !== undefined && !(Number.isInteger(bits) && bits >= 0 && bits <= maxBits))
    )
      return `${JSON.stringify(entry)} is not an IP address or CIDR range (e.g. 10.0.0.0/8, 127.0.0.1, ::1)`
    if (bits === undefined) list.addAddress(address, familyOf(address))
    else list.addSubnet(address, bits, familyOf(address))
  }
  return { entries, list }
}

const isTrusted = (proxies: TrustedProxies, address: string) => proxies.list.check(address, familyOf(address))

/** The client's address, or undefined when the caller gave none (an in-process call). */
export const clientAddress = (
  peer: string | undefined,
  forwardedFor: string | undefined,
  proxies: TrustedProxies
): string | undefined => {
  const from = peer === undefined ? undefined : plainAddress(peer)
  if (from === undefined || !isTrusted(proxies, from)) return from
  const hops = (forwardedFor ?? "").split(",")
  let client = from
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plainAddress(hops[i]!)
    // Garbage a trusted proxy passed on: the last address known good stands.
    if (hop === undefined) break
    client = hop
    if (!isTrusted(proxies, hop)) break
  }
  return client
}

/** The eight 16-bit groups of an IPv6 address, written out. */
const ipv6Groups = (address: string): ReadonlyArray<string> => {
  let text = address
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (v4 !== null) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = "", tail] = text.split("::")
  const left = head === "" ? [] : head.split(":")
  const right = tail === undefined || tail === "" ? [] : tail.split(":")
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0")
  return [...left, ...zeros, ...right].map((group) => group.padStart(4, "0"))
}

/**
 * The budget an address counts against: an IPv4 address alone, an IPv6 address by its /64, since
 * one subscriber is handed a whole /64 and could otherwise rotate through it.
 */
export const addressBucket = (address: string | undefined): string => {
  if (address === undefined) return "address:unknown"
  return isIP(address) === 6 ? `address:${ipv6Groups(address).slice(0, 4).join(":")}::/64` : `address:${address}`
}
