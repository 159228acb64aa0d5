import { requestRefusal } from "./problem.js"

/**
 * The default request body limit of every surface. The largest legitimate body is a 500-row
 * client import: about 75 KB for typical rows, under 400 KB with every field at its maximum valid
 * length. 1 MiB leaves room for that and keeps the worst parse to a few milliseconds, so one
 * request cannot hold the event loop.
 */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024

/**
 * Calls one tRPC batch may carry: above the company rate limit, which each call counts against.
 * An MCP batch has its own, smaller cap (`MAX_BATCH_MESSAGES` in packages/mcp).
 */
export const MAX_BATCH_CALLS = 100

const tooLarge = (limit: number) =>
  requestRefusal("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${limit} bytes`)

/**
 * Reads what is left of a refused body and throws it away: the client is still sending it, and
 * the connection can carry its next request only once it has all arrived. Nothing is kept.
 */
const discard = async (reader: ReadableStreamDefaultReader<Uint8Array>) => {
  try {
    while (!(await reader.read()).done);
  } catch {
    // the client went away: nothing left to discard
  }
}

/**
 * The request's body, chunk by chunk, failing with a 413 TRPCError once more than `limit` bytes
 * have arrived, or before reading anything when Content-Length already says so. The declared
 * length alone is never trusted (a chunked body has none): bytes are counted as they come. Being
 * a generator, it touches the body only when first read, so a request refused before that (401,
 * 404) leaves its body to the server, which drains it unread.
 */
async function* chunksOf(req: Request, limit: number): AsyncGenerator<Uint8Array> {
  if (Number(req.headers.get("content-length")) > limit) throw tooLarge(limit)
  if (req.body === null) return
  const reader = req.body.getReader()
  let received = 0
  for (;;) {
    const chunk = await reader.read()
    if (chunk.done) return
    received += chunk.value.byteLength
    if (received > limit) {
      void discard(reader)
      throw tooLarge(limit)
    }
    yield chunk.value
  }
}

async function* recorded(chunks: AsyncGenerator<Uint8Array>, into: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    into.push(chunk)
    yield chunk
  }
}

/** The whole body as text, refused with a 413 TRPCError past `limit` bytes. */
export const readBody = async (req: Request, limit: number): Promise<string> => {
  const chunks: Uint8Array[] = []
  for await (const chunk of chunksOf(req, limit)) chunks.push(chunk)
  return Buffer.concat(chunks).toString()
}

/**
 * The same request with its body limited, for handlers that read it themselves (tRPC's fetch
 * adapter). The chunks read are also pushed to `received` when given, so a body the handler
 * cannot parse can be shown where it broke.
 */
export const withBodyLimit = (req: Request, limit: number, received?: Uint8Array[]): Request => {
  if (req.method === "GET" || req.method === "HEAD") return req
  const chunks = received === undefined ? chunksOf(req, limit) : recorded(chunksOf(req, limit), received)
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = await chunks.next()
        if (chunk.done) controller.close()
        else controller.enqueue(chunk.value)
      },
      cancel: async () => void (await chunks.return(undefined))
    },
    // Read nothing ahead: the body stays untouched until the handler asks for it.
    { highWaterMark: 0 }
  )
  // Node's fetch needs `duplex` for a streamed body; the DOM typings do not know it.
  const init: RequestInit & { duplex: "half" } = {
    method: req.method,
    headers: req.headers,
    signal: req.signal,
    body,
    duplex: "half"
  }
  return new Request(req.url, init)
}
