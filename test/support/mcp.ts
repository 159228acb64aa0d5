import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { TestServer } from "./server.js"

/** An MCP client connected to the server's `/mcp` with an API key, as an assistant connects. */
export const connectMcp = async (server: TestServer, key: string, name = "fidelis-black-box"): Promise<Client> => {
  const client = new Client({ name, version: "1.0.0" })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { "X-API-Key": key } } })
  )
  return client
}
