#!/usr/bin/env node
// The compiled CLI (`npm run build`, run by `npm install` and `npm start`) starts in a fraction of the
// time tsx takes to compile the sources; without it, tsx compiles them on load.
import { existsSync } from "node:fs"

const compiled = new URL("../dist/main.js", import.meta.url)
if (existsSync(compiled)) {
  await import(compiled.href)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("../src/main.ts")
}
