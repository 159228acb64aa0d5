import { expect } from "vitest"

/** An error body as every surface answers it: the spec's `detail`, a machine code and the request id. */
export const problem = (detail: unknown, code: string) => ({ detail, code, request_id: expect.any(String) })
