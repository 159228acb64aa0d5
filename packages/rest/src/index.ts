export { docsAsset, docsHtml } from "./docs.js"
export { createRestHandler, problemResponse, type RestHandlerOptions, type RestRequestInit } from "./handler.js"
export { createRouteIndex, type RestApi, type RouteIndex } from "./routes.js"
export { API_VERSION, END_USER_GUIDE, openApiDocument, type OpenApiOptions } from "./openapi.js"
