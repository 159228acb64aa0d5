#!/usr/bin/env node
// The compiled CLI starts in a fraction of the time tsx takes to compile the sources; it is compiled
// again when a source changed since, and tsx runs the sources only when compiling fails.
import { ensureCompiled, runCompiled } from "./compiled.js"

if (ensureCompiled()) {
  runCompiled()
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("../src/main.ts")
}
