import { describe, expect, it } from "vitest"
import { isOpenAt, localTime, type BusinessHours } from "../src/stores/hours.js"

const SAO_PAULO = "America/Sao_Paulo"

/** Weekdays only, 08:00 to 18:00; a bar open Friday and Saturday from 18:00 to 02:00. */
const SHOP: BusinessHours = {
  monday: { open: "08:00", close: "18:00" },
  tuesday: { open: "08:00", close: "18:00" },
  wednesday: { open: "08:00", close: "18:00" },
  thursday: { open: "08:00", close: "18:00" },
  friday: { open: "08:00", close: "18:00" }
}
const BAR: BusinessHours = { friday: { open: "18:00", close: "02:00" }, saturday: { open: "18:00", close: "02:00" } }

// 2026-03-06 is a Friday. São Paulo is UTC-3 all year (no DST since 2019).
const at = (iso: string) => new Date(iso)

describe("business hours", () => {
  it("reads the weekday and minute in the store's own zone, not the server's", () => {
    expect(localTime(at("2026-03-06T02:30:00Z"), SAO_PAULO)).toEqual({ weekday: 4, minute: 23 * 60 + 30 })
    expect(localTime(at("2026-03-06T02:30:00Z"), "Asia/Tokyo")).toEqual({ weekday: 5, minute: 11 * 60 + 30 })
  })

  it("opens at `open` and closes at `close`, exclusive", () => {
    expect(isOpenAt(SHOP, SAO_PAULO, at("2026-03-06T10:59:00Z"))).toBe(false)
    expect(isOpenAt(SHOP, SAO_PAULO, at("2026-03-06T11:00:00Z"))).toBe(true)
    expect(isOpenAt(SHOP, SAO_PAULO, at("2026-03-06T20:59:00Z"))).toBe(true)
    expect(isOpenAt(SHOP, SAO_PAULO, at("2026-03-06T21:00:00Z"))).toBe(false)
  })

  it("is closed all day on a day left out", () => {
    expect(isOpenAt(SHOP, SAO_PAULO, at("2026-03-07T15:00:00Z"))).toBe(false)
    expect(isOpenAt({}, SAO_PAULO, at("2026-03-06T15:00:00Z"))).toBe(false)
  })

  it("runs past midnight into the next day, even a closed one", () => {
    // Friday 23:00, Saturday 01:59 (Friday's opening), Saturday 02:00, Sunday 01:00 (Saturday's), Sunday 03:00.
    expect(isOpenAt(BAR, SAO_PAULO, at("2026-03-07T02:00:00Z"))).toBe(true)
    expect(isOpenAt(BAR, SAO_PAULO, at("2026-03-07T04:59:00Z"))).toBe(true)
    expect(isOpenAt(BAR, SAO_PAULO, at("2026-03-07T05:00:00Z"))).toBe(false)
    expect(isOpenAt(BAR, SAO_PAULO, at("2026-03-08T04:00:00Z"))).toBe(true)
    expect(isOpenAt(BAR, SAO_PAULO, at("2026-03-08T06:00:00Z"))).toBe(false)
    // Thursday 01:00: Wednesday has no opening to run into it.
    expect(isOpenAt(BAR, SAO_PAULO, at("2026-03-05T04:00:00Z"))).toBe(false)
  })

  it("gives one instant different answers in different zones", () => {
    const instant = at("2026-03-06T12:00:00Z")
    expect(isOpenAt(SHOP, SAO_PAULO, instant)).toBe(true)
    expect(isOpenAt(SHOP, "Asia/Tokyo", instant)).toBe(false)
    expect(isOpenAt(BAR, "Asia/Tokyo", instant)).toBe(true)
  })

  it("reads close 24:00 as the end of the day and open = close as a full 24 hours", () => {
    const allFriday: BusinessHours = { friday: { open: "00:00", close: "24:00" } }
    expect(isOpenAt(allFriday, "UTC", at("2026-03-06T23:59:00Z"))).toBe(true)
    expect(isOpenAt(allFriday, "UTC", at("2026-03-07T00:00:00Z"))).toBe(false)
    const roundTheClock: BusinessHours = { friday: { open: "08:00", close: "08:00" } }
    expect(isOpenAt(roundTheClock, "UTC", at("2026-03-07T07:59:00Z"))).toBe(true)
    expect(isOpenAt(roundTheClock, "UTC", at("2026-03-07T08:00:00Z"))).toBe(false)
  })
})
