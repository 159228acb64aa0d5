import { keysRouter } from "./auth/router.js"
import { clientsRouter } from "./clients/router.js"
import { couponsRouter } from "./coupons/router.js"
import { empresasRouter } from "./empresas/router.js"
import { cardsRouter, programsRouter } from "./loyalty/router.js"
import { metricsRouter } from "./metrics/router.js"
import { pointsRouter } from "./points/router.js"
import { productsRouter } from "./products/router.js"
import { questsRouter } from "./quests/router.js"
import { campaignsRouter } from "./referrals/router.js"
import { rewardsRouter } from "./rewards/router.js"
import { router } from "./trpc.js"

/** The company API (`/api/v1/public`): tenant-scoped procedures and, later, public survey routes. */
export const publicApiRouter = router({
  clients: clientsRouter,
  points: pointsRouter,
  coupons: couponsRouter,
  cards: cardsRouter,
  programs: programsRouter,
  products: productsRouter,
  rewards: rewardsRouter,
  campaigns: campaignsRouter,
  quests: questsRouter,
  metrics: metricsRouter
})

/** Platform administration (`/api/v1/internal`). */
export const internalApiRouter = router({
  empresas: empresasRouter,
  keys: keysRouter
})

/** The one router: every surface (tRPC, REST, MCP, CLI) projects it. */
export const appRouter = router({
  ...publicApiRouter._def.record,
  ...internalApiRouter._def.record
})

export type AppRouter = typeof appRouter
