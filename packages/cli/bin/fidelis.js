#!/usr/bin/env node
// Node 20 cannot run TypeScript on its own; tsx compiles the sources (and the workspace's) on load.
import { register } from "tsx/esm/api"

register()
await import("../src/main.ts")
