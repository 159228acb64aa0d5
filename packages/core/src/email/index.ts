import { Layer } from "effect"
import { EmailDelivery, EmailTracking, Outbox } from "./service.js"

/**
 * This area's services (the outbox, its delivery and its tracking, with their tokens and transport),
 * merged into the core runtime.
 */
export const layer = Layer.mergeAll(Outbox.Default, EmailDelivery.Default, EmailTracking.Default)
