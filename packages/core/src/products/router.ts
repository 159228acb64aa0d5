import { router } from "../trpc.js"

export const productsRouter = router({})
