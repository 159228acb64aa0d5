import { router } from "../trpc.js"

/** Issued cards (progress rows): `fidelis cards stamp <card_id>`. */
export const cardsRouter = router({})

/** Card definitions. */
export const programsRouter = router({})
