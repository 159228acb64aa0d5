/**
 * The email area's door: the outbox that queues messages, their delivery by the `email` queue's
 * job, and the tracking routes their links lead to.
 */
export { Outbox } from "./outbox.js"
export { EmailDelivery } from "./delivery.js"
export { EmailTracking } from "./tracking.js"

/**
 * The transport and the account messages, for the account mail that travels on its own queue
 * (docs/decisions.md "Account mail beside the outbox").
 */
export { Mailer } from "./transport.js"
export { resetPasswordMessage, verifyEmailMessage, type AccountLink } from "./render.js"
