import { router } from "../trpc.js"

export const questsRouter = router({})
