#!/usr/bin/env node
// Entry point of the `prospero` command: runs the TypeScript sources through tsx.
//
// `prospero serve` owns its stop signals from this first line: loading the sources takes a few
// hundred ms, and a Ctrl-C (or a process manager's SIGTERM) in that time must stop it cleanly,
// exit 0, rather than kill it. Such a signal is held here and handed to serve's own handlers
// (src/cli/main.ts), which take over before anything is created.
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
let held = null;
const hold = (signal) => {
  held ??= signal;
};
if (process.argv[2] === "serve") for (const s of STOP_SIGNALS) process.on(s, hold);
const takeHeldSignal = () => {
  for (const s of STOP_SIGNALS) process.off(s, hold);
  return held;
};

const { register } = await import("tsx/esm/api");
register();
const { main } = await import("../src/cli/main.ts");
await main(process.argv, { takeHeldSignal });
