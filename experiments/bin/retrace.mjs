#!/usr/bin/env node
// Launcher for the `retrace` CLI. In the repository (the TypeScript sources are here) it registers
// tsx and runs them as they are; in the installed package (no sources) it runs the compiled
// JavaScript in dist/ with plain node. Either way only the command that runs is loaded
// (experiments/cli-lazy.ts).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const sources = new URL("../cli-lazy.ts", import.meta.url);
let entry;
if (existsSync(fileURLToPath(sources))) {
  const { register } = await import("tsx/esm/api");
  register();
  // other workspace packages (@retrace-cua/*) resolve to their sources too (dev-conditions.mjs)
  const { register: registerHook } = await import("node:module");
  registerHook("./dev-conditions.mjs", import.meta.url);
  entry = sources.href;
} else {
  entry = new URL("../dist/cli-lazy.js", import.meta.url).href;
}
// `retrace tasks | head`: the reader closed the pipe; stop quietly as other Unix tools do instead
// of an unhandled EPIPE stack trace.
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});
const { main } = await import(entry);
await main(process.argv);
// The command is over: a handle some library left open (a reconnect timer, a pool) must not keep
// the process alive. The timer is unref'd, so a process with nothing left exits at once as before.
setTimeout(() => process.exit(), 3_000).unref();
