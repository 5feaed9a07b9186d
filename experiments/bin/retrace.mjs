#!/usr/bin/env node
// Launcher for the `retrace` CLI: registers tsx so the TypeScript sources run as they are.
import { register } from "tsx/esm/api";

register();
// `retrace tasks | head`: the reader closed the pipe; stop quietly as other Unix tools do instead
// of an unhandled EPIPE stack trace.
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});
const { main } = await import("../cli.ts");
await main(process.argv);
// The command is over: a handle some library left open (a reconnect timer, a pool) must not keep
// the process alive. The timer is unref'd, so a process with nothing left exits at once as before.
setTimeout(() => process.exit(), 3_000).unref();
