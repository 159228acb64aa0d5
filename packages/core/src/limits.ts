/**
 * Calls one HTTP request may carry (a tRPC batch, an MCP JSON-RPC batch): the MCP SDK's own cap,
 * and above the company rate limit, which each call counts against.
 */
export const MAX_BATCH_CALLS = 100
