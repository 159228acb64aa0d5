import { authRouter, usersRouter } from "./accounts/router.js"
import { cartRouter } from "./cart/router.js"
import { keysRouter } from "./auth/router.js"
import { clientsRouter } from "./clients/router.js"
import { couponsRouter } from "./coupons/router.js"
import { emailRouter, outboxRouter } from "./email/router.js"
import { empresasRouter } from "./empresas/router.js"
import { cardsRouter, programsRouter, userCardsRouter } from "./loyalty/router.js"
import { metricsRouter } from "./metrics/router.js"
import { companyNfceRouter, nfceRouter, userNfceRouter } from "./nfce/router.js"
import { pointsRouter } from "./points/router.js"
import { productsRouter } from "./products/router.js"
import { questsRouter } from "./quests/router.js"
import { campaignsRouter, qrRouter, referralCodesRouter } from "./referrals/router.js"
import { redemptionsRouter, staffRedemptionsRouter, userRedemptionsRouter } from "./redemptions/router.js"
import { rewardsRouter } from "./rewards/router.js"
import { storeProfileRouter, storesRouter } from "./stores/router.js"
import { questResponsesRouter, surveysRouter } from "./surveys/router.js"
import { adminRouter, teamRouter } from "./team/router.js"
import { userTimelineRouter } from "./timeline/router.js"
import { mergeRouters, router } from "./trpc.js"
import { establishmentsRouter } from "./wallets/router.js"

/** `/api/v1/public`: the company API (tenant-scoped procedures) and the public survey routes (no key). */
export const publicApiRouter = router({
  clients: clientsRouter,
  points: pointsRouter,
  coupons: couponsRouter,
  cards: cardsRouter,
  programs: programsRouter,
  products: productsRouter,
  rewards: rewardsRouter,
  redemptions: redemptionsRouter,
  campaigns: campaignsRouter,
  quests: mergeRouters(questsRouter, questResponsesRouter),
  surveys: surveysRouter,
  metrics: metricsRouter,
  email: emailRouter,
  storeProfile: storeProfileRouter,
  qr: qrRouter,
  team: teamRouter,
  nfceStore: companyNfceRouter
})

/** Platform administration (`/api/v1/internal`). */
export const internalApiRouter = router({
  empresas: empresasRouter,
  keys: keysRouter,
  outbox: outboxRouter,
  nfce: nfceRouter
})

/** `/api/v1`: the end-user API (bearer access tokens, and the account routes that issue them). */
export const endUserApiRouter = router({
  auth: authRouter,
  users: usersRouter,
  timeline: userTimelineRouter,
  stores: storesRouter,
  referralCodes: referralCodesRouter,
  establishments: establishmentsRouter,
  admin: adminRouter,
  staffRedemptions: staffRedemptionsRouter,
  userRewards: userRedemptionsRouter,
  cart: cartRouter,
  userCards: userCardsRouter,
  userNfce: userNfceRouter
})

/** The one router: every surface (tRPC, REST, MCP, CLI) projects it. */
export const appRouter = router({
  ...publicApiRouter._def.record,
  ...internalApiRouter._def.record,
  ...endUserApiRouter._def.record
})

export type AppRouter = typeof appRouter
