import { z } from "zod"
import { JsonNumber } from "./contracts.js"

/**
 * The most points one figure holds: a credit, a bonus, a product's or a reward's cost, an order's
 * or a redemption's total, and a client's balance (docs/decisions.md, "Bounded sums"). Any two of
 * them add up inside the int4 columns that copy an amount (2 × 10^9 < 2^31), and a sum over
 * millions of balances stays a safe integer in JavaScript.
 */
export const MAX_POINTS = 1_000_000_000

/** A positive amount of points, at most `MAX_POINTS`. */
export const PointsAmount = JsonNumber(z.number().int().min(1).max(MAX_POINTS))

/**
 * The most BRL one amount holds (a price, a cashback, a wallet's cashback balance): ten times it
 * still fits the numeric(12, 2) columns, and a hundred times the numeric(14, 2) ones.
 */
export const MAX_MONEY = 1_000_000_000

/** BRL amounts: cents precision, as the numeric(12, 2) columns store them (never silently rounded). */
export const Money = JsonNumber(z.number().min(0).max(MAX_MONEY).multipleOf(0.01))
