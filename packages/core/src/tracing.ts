import { Effect, FiberRef, Layer, type Tracer } from "effect"

/**
 * Whether the runtime records spans (FIDELIS_TRACING). Off, Effect still builds a no-op span per
 * `withSpan`, which is why the services wrap their calls with `traced` and `span` below instead.
 */
export const tracingLayer = (enabled: boolean) => Layer.setTracerEnabled(enabled)

const whenTracing = <A, E, R>(on: () => Effect.Effect<A, E, R>, off: () => Effect.Effect<A, E, R>) =>
  Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (enabled) => (enabled ? on() : off()))

/**
 * `Effect.fn(name)` that pays for its span and call-site stack capture only when the runtime traces
 * (about 10 µs a call otherwise spent on spans nobody reads; docs/performance.md).
 */
export const traced = (name: string, options?: Tracer.SpanOptions): typeof Effect.fnUntraced =>
  ((body: Function, ...pipeables: Array<Function>) => {
    const withSpan = (Effect.fn(name, options) as Function)(body, ...pipeables) as Function
    const plain = (Effect.fnUntraced as Function)(body, ...pipeables) as Function
    return function (this: unknown, ...args: Array<unknown>) {
      return whenTracing(
        () => withSpan.apply(this, args),
        () => plain.apply(this, args)
      )
    }
  }) as typeof Effect.fnUntraced

/** `Effect.withSpan(name, options)`, as a pipeable, only when the runtime traces. */
export const span =
  (name: string, options?: Tracer.SpanOptions) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    whenTracing(
      () => Effect.withSpan(self, name, options),
      () => self
    )
