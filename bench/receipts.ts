import { randomInt } from "node:crypto"
import { checkDigit } from "../packages/core/src/nfce/access-key.js"
import { BENCH_CNPJ } from "./seed.js"

/** Brazil's clock (UTC-3): an offline receipt's month and day must not be in the future there. */
const brasilia = () => new Date(Date.now() - 3 * 3_600_000)

/**
 * A generator of distinct offline NFC-e QR codes (SP, model 65, `tpEmis` 9) issued by the bench
 * tenant today: the invoice number counts up and the 8-digit random code is drawn once per
 * generator, so no two receipts of a run, nor of two runs, share an access key (which would be a 409).
 */
export const offlineReceipts = () => {
  const code = String(randomInt(1e8)).padStart(8, "0")
  let number = 0
  return () => {
    const today = brasilia()
    const aamm = `${String(today.getUTCFullYear()).slice(2)}${String(today.getUTCMonth() + 1).padStart(2, "0")}`
    const first43 = `35${aamm}${BENCH_CNPJ}65001${String(++number).padStart(9, "0")}9${code}`
    const day = String(today.getUTCDate()).padStart(2, "0")
    return `https://www.nfce.fazenda.sp.gov.br/qrcode?p=${first43}${checkDigit(first43)}|3|1|${day}|12.34|||c2ln`
  }
}
