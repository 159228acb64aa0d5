export { createMcpHandler, type McpHandler, type McpHandlerOptions } from "./handler.js"
export { SERVER_NAME, SERVER_VERSION } from "./server.js"
