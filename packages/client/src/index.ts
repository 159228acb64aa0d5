export {
  createFidelisClient,
  type AppRouter,
  type FidelisCallContext,
  type FidelisClient,
  type FidelisClientOptions
} from "@fidelis/core/client"
export {
  createFidelisRestClient,
  type FidelisRestClient,
  type FidelisRestClientOptions,
  type components,
  type operations,
  type paths
} from "./rest.js"
