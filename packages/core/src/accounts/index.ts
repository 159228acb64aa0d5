import { Layer } from "effect"
import { SessionAuthority } from "../admission.js"
import { AccountMail } from "./mail.js"
import { Accounts } from "./service.js"

/**
 * This area's services (accounts and sessions, with their tokens, throttle and mail), merged into
 * the core runtime; its sessions admit the end-user API's callers.
 */
export const layer = Layer.effect(SessionAuthority, Accounts).pipe(
  Layer.provideMerge(Layer.mergeAll(Accounts.Default, AccountMail.Default))
)
