/** Weekday names as `business_hours` keys them (spec 2.4), Sunday first as `Date#getDay` counts. */
export const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const
export type Weekday = (typeof WEEKDAYS)[number]

/** One day's opening, local wall-clock HH:MM; `close` at or before `open` means it closes the next day. */
export interface DayHours {
  readonly open: string
  readonly close: string
}

export type BusinessHours = Partial<Record<Weekday, DayHours>>

const MINUTES_PER_DAY = 24 * 60

/** Minutes since local midnight; "24:00" is the end of the day. */
export const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

/** Whether `day`'s opening runs past midnight into the next day. */
const crossesMidnight = (day: DayHours) => minutesOf(day.close) <= minutesOf(day.open)

/** The weekday and minute of the day an instant is in a time zone (DST included, by the ICU data). */
export const localTime = (instant: Date, timeZone: string): { weekday: number; minute: number } => {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23"
  }).formatToParts(instant)
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? ""
  const weekday = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].indexOf(part("weekday"))
  return { weekday, minute: Number(part("hour")) * 60 + Number(part("minute")) }
}

/**
 * Whether a store with these hours is open at `instant` in its time zone: within today's opening,
 * or still within yesterday's when that one runs past midnight (a bar open 18:00-02:00 is open at
 * 01:30 on the next weekday, even when that weekday itself is closed).
 */
export const isOpenAt = (hours: BusinessHours, timeZone: string, instant: Date): boolean => {
  const { weekday, minute } = localTime(instant, timeZone)
  const today = hours[WEEKDAYS[weekday]!]
  const yesterday = hours[WEEKDAYS[(weekday + 6) % 7]!]
  if (yesterday !== undefined && crossesMidnight(yesterday) && minute < minutesOf(yesterday.close)) return true
  if (today === undefined) return false
  const close = crossesMidnight(today) ? MINUTES_PER_DAY : minutesOf(today.close)
  return minute >= minutesOf(today.open) && minute < close
}
