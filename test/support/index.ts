export * from "./database.js"
export * from "./http.js"
export * from "./server.js"
export * from "./mcp.js"
