import type { ManagedRuntime } from "effect"

/**
 * The services a core program may use, as the composition root provides them. runtime.ts fills this
 * registry (module augmentation) with its layers' output, so the kernel types every program against
 * the whole core without importing an area.
 */
export interface ServiceRegistry {}

/** Every service a procedure's program may use. */
export type CoreServices = ServiceRegistry[keyof ServiceRegistry]

export type CoreRuntime = ManagedRuntime.ManagedRuntime<CoreServices, unknown>
