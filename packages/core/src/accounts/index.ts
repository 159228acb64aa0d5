import { Layer } from "effect"
import { AccountMail } from "./mail.js"
import { Accounts } from "./service.js"

/** This area's services (accounts and sessions, with their tokens, throttle and mail), merged into the core runtime. */
export const layer = Layer.mergeAll(Accounts.Default, AccountMail.Default)
