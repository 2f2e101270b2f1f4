#!/usr/bin/env node
// Entry point of the `prospero` command: runs the TypeScript sources through tsx.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
await main(process.argv);
