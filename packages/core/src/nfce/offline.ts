import type { NfceOfflineConfig } from "../config.js"
import type { Settings } from "../empresas/contracts.js"
import { MAX_POINTS } from "../amounts.js"
import type { InvoiceOutcome } from "./contracts.js"

/** Points for a total in centavos: whole points only, never rounded up. */
export const pointsFor = (totalCents: number, pointsPerReal: number) =>
  Math.floor((totalCents * pointsPerReal) / 100 + 1e-9)

const brl = (cents: number) => `R$ ${(cents / 100).toFixed(2)}`

/**
 * Why a total earns nothing at this store, or undefined: above the store's ceiling, or more points
 * than one credit holds. The ceiling is checked first, so the product below stays a safe integer
 * whatever total a QR code claims.
 */
export const totalRefusal = (
  totalCents: number,
  settings: Pick<Settings, "nfce_max_total" | "points_per_real">
): { readonly type: string; readonly msg: string } | undefined => {
  const ceiling = Math.round(settings.nfce_max_total * 100)
  if (totalCents > ceiling)
    return {
      type: "total_above_limit",
      msg: `The receipt's total, ${brl(totalCents)}, is above the ${brl(ceiling)} this store accepts for one receipt`
    }
  const points = pointsFor(totalCents, settings.points_per_real)
  if (points > MAX_POINTS)
    return {
      type: "total_out_of_range",
      msg:
        `The receipt's total, ${brl(totalCents)}, would earn ${points} points, ` +
        `more than one credit can hold (${MAX_POINTS})`
    }
  return undefined
}

/**
 * When an offline receipt stops waiting for the state: the end of its issue day on Brazil's latest
 * clock (UTC-5), plus the window. Tied to the issue, not to the scan, so scanning again never
 * extends it.
 */
export const confirmByOf = (issueDate: string, config: NfceOfflineConfig) => {
  const [year = 0, month = 1, day = 1] = issueDate.split("-").map(Number)
  return new Date(Date.UTC(year, month - 1, day + 1, 5) + config.windowSeconds * 1000)
}

/** Seconds before the next look at the page: doubling from the base, capped, and never past the deadline. */
export const recheckDelay = (checks: number, remainingSeconds: number, config: NfceOfflineConfig) =>
  Math.max(
    0,
    Math.min(config.recheckBaseSeconds * 2 ** Math.min(checks, 30), config.recheckMaxSeconds, remainingSeconds)
  )

/** How the store's own proof went: it confirmed, it did not match what the store registered, or there was none. */
export type ProofVerdict = "confirmed" | "mismatch" | "none"

/** Why a pending receipt was reversed, for people: the page's last answer, and the proof's. */
export const reversalReason = (
  outcome: Exclude<InvoiceOutcome["status"], "ok">,
  proof: ProofVerdict,
  points: number,
  confirmBy: Date
) => {
  const by = confirmBy.toISOString()
  const page = {
    not_found: `the state's page did not show this offline receipt by ${by}: the store did not transmit it in time`,
    unavailable: `the state's page could not be read until ${by}`,
    captcha_required: "this state shows invoices only behind a captcha",
    blocked: `the state's page refused the consultation until ${by}`
  }[outcome]
  const own =
    proof === "mismatch"
      ? "its own hash or signature does not match what the store registered"
      : "the store registered no CSC or certificate that proves it"
  return `${points} pending points reversed: ${page}, and ${own}`
}
