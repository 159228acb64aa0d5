// Stands in for the server's request context and procedure metadata in the published router type:
// tRPC's client reads neither, and the real ones reach into effect and the server's internals.
export type RequestContext = object
export type ProcedureMeta = object
