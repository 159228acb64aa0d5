import { Either } from "effect"
import { parseAccessKey, UF_BY_CODE } from "./access-key.js"
import type { DecodedQr, QrLayout, QrRefusal, Uf } from "./contracts.js"
import { decimalCents } from "./page.js"
import { ALLOW_LIST, isAnyStateHost, isOfficialHost, type AllowList } from "./hosts.js"

export interface DecodeOptions {
  readonly now: Date
  /** Oldest issue accepted, in days; null: no limit. */
  readonly maxAgeDays: number | null
  /** The empresa is a sandbox: test invoices (tpAmb 2) pass. */
  readonly sandbox: boolean
  readonly allowList?: AllowList
}

const refuse = (reason: QrRefusal["reason"], message: string) => Either.left<QrRefusal>({ reason, message })

const NOT_A_RECEIPT =
  "This QR code is not an NFC-e receipt: scan the QR code printed at the bottom of the receipt, " +
  "next to the access key"

const TOTAL = String.raw`(0|0[.,][0-9]{2}|[1-9][0-9]{0,12}([.,][0-9]{2})?)`
const DAY = "(0[1-9]|[12][0-9]|3[01])"
const TOKEN_ID = "(0|[1-9][0-9]{0,5})"

/**
 * The payload after the key, per layout, from the NFC-e XSD's patterns (PL_010 v1.30; nfce.md
 * section 1). The one departure: the offline total also takes a decimal comma, as real BA receipts
 * carry (`|22|94,90|`, wendelpaco/nfce-scraper-service src/exemplo.txt).
 */
const LAYOUTS: ReadonlyArray<{ readonly layout: QrLayout; readonly pattern: RegExp }> = [
  { layout: "v2_online", pattern: new RegExp(`^2\\|([12])\\|${TOKEN_ID}\\|[A-Fa-f0-9]{40}$`) },
  {
    layout: "v2_offline",
    pattern: new RegExp(`^2\\|([12])\\|${DAY}\\|${TOTAL}\\|[A-Fa-f0-9]{56}\\|${TOKEN_ID}\\|[A-Fa-f0-9]{40}$`)
  },
  { layout: "v3_online", pattern: /^3\|([12])$/ },
  {
    layout: "v3_offline",
    pattern: new RegExp(`^3\\|([12])\\|${DAY}\\|${TOTAL}\\|[123]?\\|([0-9]{3,14})?\\|[a-zA-Z0-9+/]+={0,2}$`)
  }
]

/** Emission types each layout belongs to: the key's 35th character (nfce.md section 1). */
const ONLINE_EMISSION = new Set(["1", "3", "4"])
const isOfflineLayout = (layout: QrLayout) => layout.endsWith("_offline")

/**
 * A URL pasted through a proxy or a tunnel carries the receipt's URL in its own query, raw or
 * percent-encoded: the innermost one is the receipt's, and only its host is ever judged or fetched.
 */
const innermostUrl = (text: string): string => {
  const starts = [...text.matchAll(/https?(:\/\/|%3A%2F%2F)/gi)].filter((match) => match.index > 0)
  const last = starts.at(-1)
  if (last === undefined) return text
  const inner = text.slice(last.index)
  if (last[1] === "://") return inner
  try {
    return decodeURIComponent(inner.split("&")[0] ?? inner)
  } catch {
    return inner
  }
}

const monthName = (year: number, month: number) => `${String(month).padStart(2, "0")}/${year}`

const DAY_MS = 86_400_000

/**
 * The issue window's bounds against `now`. Brazil's clocks run from UTC-2 to UTC-5, so a date has
 * begun somewhere once it is 02:00 UTC, and ended everywhere at 05:00 UTC the next day: a receipt is
 * refused only when no Brazilian clock could have printed it in time.
 */
const checkAge = (
  year: number,
  month: number,
  day: number | null,
  options: DecodeOptions
): Either.Either<void, QrRefusal> => {
  const earliest = Date.UTC(year, month - 1, day ?? 1, 2)
  const latest = day === null ? Date.UTC(year, month, 1, 5) : Date.UTC(year, month - 1, day + 1, 5)
  const when = day === null ? monthName(year, month) : `${String(day).padStart(2, "0")}/${monthName(year, month)}`
  if (earliest > options.now.getTime()) {
    return refuse("ISSUED_IN_FUTURE", `The invoice says it was issued in ${when}, which has not come yet`)
  }
  if (options.maxAgeDays !== null && options.now.getTime() - latest > options.maxAgeDays * DAY_MS) {
    return refuse(
      "TOO_OLD",
      `The invoice was issued in ${when}; invoices older than ${options.maxAgeDays} days are not accepted`
    )
  }
  return Either.void
}

/** The query's `p`, decoded from the raw query: form decoding would turn a v3 signature's `+` into a space. */
const rawParam = (url: URL, name: string): string | undefined =>
  url.search
    .slice(1)
    .split("&")
    .find((part) => part.startsWith(`${name}=`))
    ?.slice(name.length + 1)

/**
 * What a consumer receipt's QR code says, checked locally before anything is fetched: its layout,
 * the access key (check digit, model 65, state), the host (an official one of the key's own state),
 * the layout against the emission type, the environment and the issue date. Pure: the clock, the
 * age limit and the sandbox flag come in.
 */
export const decodeQr = (text: string, options: DecodeOptions): Either.Either<DecodedQr, QrRefusal> => {
  const allowList = options.allowList ?? ALLOW_LIST
  const trimmed = text.trim()
  if (!trimmed.includes("://")) {
    // A barcode reader on the wrong keyboard layout drops `/` and `?`: https:www.nfce...brqrcodep=...
    return /^https?:/i.test(trimmed) && /p=[0-9A-Z]{44}/.test(trimmed)
      ? refuse(
          "SCANNER_MANGLED",
          "This looks like a receipt URL whose '/' and '?' were lost by a barcode reader; " +
            "scan the QR code with the phone's camera or type the URL as printed"
        )
      : refuse("NOT_NFCE", `${NOT_A_RECEIPT} (this one holds no web address)`)
  }
  let url: URL
  try {
    url = new URL(innermostUrl(trimmed))
  } catch {
    return refuse("NOT_NFCE", `${NOT_A_RECEIPT} (this one holds no valid web address)`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return refuse("NOT_NFCE", `${NOT_A_RECEIPT} (this one holds a ${url.protocol} link)`)
  }
  if (rawParam(url, "chNFe") !== undefined) {
    return refuse(
      "LEGACY_QR",
      "This is a version 1 NFC-e QR code, from layouts retired in 2018; such receipts are no longer accepted"
    )
  }
  const raw = rawParam(url, "p")
  if (raw === undefined) {
    return isAnyStateHost(allowList, url.hostname)
      ? refuse("NOT_NFCE", `This link to ${url.hostname} has no invoice data (no p= parameter); scan the QR again`)
      : refuse("NOT_NFCE", `${NOT_A_RECEIPT} (this one links to ${url.hostname})`)
  }
  let payload: string
  try {
    payload = decodeURIComponent(raw)
  } catch {
    return refuse("MALFORMED_PAYLOAD", "The QR code's invoice data (p=) is damaged: it has a broken %-escape")
  }
  const [key = "", ...rest] = payload.split("|")
  return Either.gen(function* () {
    const fields = yield* parseAccessKey(key)
    const uf = UF_BY_CODE[fields.cuf] as Uf
    const tail = rest.join("|")
    const match = LAYOUTS.map(({ layout, pattern }) => ({ layout, groups: pattern.exec(tail) })).find(
      ({ groups }) => groups !== null
    )
    if (match?.groups == null) {
      return yield* refuse(
        "MALFORMED_PAYLOAD",
        `The QR code's invoice data is incomplete or damaged: after the access key it holds ${rest.length} ` +
          `field(s) that fit no NFC-e layout (version 2 or 3, online or offline)`
      )
    }
    const { layout, groups } = match
    const tpAmb = groups[1] === "2" ? 2 : 1
    if (!isOfficialHost(allowList, uf, url, tpAmb)) {
      return yield* refuse(
        "HOST_NOT_OFFICIAL",
        `${url.host} is not an official NFC-e consultation site of ${uf}, the state in the access key`
      )
    }
    const online = ONLINE_EMISSION.has(fields.tp_emis)
    if (isOfflineLayout(layout) === online) {
      return yield* refuse(
        "LAYOUT_MISMATCH",
        `The QR code has the ${isOfflineLayout(layout) ? "offline" : "online"} layout, but the access key's ` +
          `emission type (${fields.tp_emis}) calls for the ${online ? "online" : "offline"} one`
      )
    }
    if (tpAmb === 2 && !options.sandbox) {
      return yield* refuse(
        "TEST_ENVIRONMENT",
        "This is a test invoice (homologation environment, no fiscal value); only sandbox empresas accept it"
      )
    }
    const year = 2000 + Number(fields.aamm.slice(0, 2))
    const month = Number(fields.aamm.slice(2))
    const day = isOfflineLayout(layout) ? Number(groups[2]) : null
    if (day !== null && new Date(Date.UTC(year, month - 1, day)).getUTCMonth() !== month - 1) {
      return yield* refuse(
        "MALFORMED_PAYLOAD",
        `The QR code's day (${day}) does not exist in ${monthName(year, month)}`
      )
    }
    yield* checkAge(year, month, day, options)
    const query = `p=${payload.replaceAll("|", "%7C")}`
    return {
      access_key: key,
      fields,
      uf,
      layout,
      tp_amb: tpAmb,
      url: `${url.protocol}//${url.host}${url.pathname}?${query}`,
      offline:
        day === null
          ? null
          : {
              total_cents: decimalCents(groups[3] ?? "0"),
              issue_date: `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`,
              payload
            }
    } satisfies DecodedQr
  })
}
