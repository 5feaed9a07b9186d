#!/usr/bin/env node
// Launcher for the `retrace` CLI: registers tsx so the TypeScript sources run as they are.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../cli.ts");
await main(process.argv);
