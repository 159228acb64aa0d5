/**
 * The time deadlines are judged by, as SQL: the database's now(), moved by the test-only clock offset
 * (FIDELIS_CLOCK_OFFSET_SECONDS, an integer the config validated, so a literal is safe) so that a
 * server started "later" on the same database sees the deadlines passed, with no backdoor route.
 */
export const databaseNow = (offsetSeconds: number) =>
  offsetSeconds === 0 ? "now()" : `(now() + make_interval(secs => ${offsetSeconds}))`
