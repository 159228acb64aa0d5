import type { ManagedRuntime } from "effect"

/**
 * The services a core program may use, as the composition root provides them. runtime.ts fills this
 * registry (module augmentation) with its layers' output, so the kernel types every program against
 * the whole core without importing an area.
 */
export interface ServiceRegistry {}

/**
 * Every service a procedure's program may use. A program that sees the router's types without runtime.ts
 * (the published tRPC client's build, which compiles only those) has an empty registry: any service then.
 */
export type CoreServices = [keyof ServiceRegistry] extends [never] ? unknown : ServiceRegistry[keyof ServiceRegistry]

export type CoreRuntime = ManagedRuntime.ManagedRuntime<CoreServices, unknown>
