export { docsAsset, docsPage } from "./docs.js"
export { createRestHandler, type RestHandlerOptions, type RestRequestInit } from "./handler.js"
export { API_VERSION, openApiDocument, type OpenApiOptions } from "./openapi.js"
