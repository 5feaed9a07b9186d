/**
 * The launcher's lazy CLI (experiments/cli-lazy.ts) is the full program (experiments/cli.ts) as a
 * user sees it: the same top-level help (from commands/summaries.ts, which must match the command
 * modules: `npm run cli:summaries` regenerates it) and, for each command, the same options, loaded
 * from that command's module only.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Command } from "commander";
import { buildProgram } from "../../experiments/cli.ts";
import { buildLazyProgram } from "../../experiments/cli-lazy.ts";
import { summariesSource } from "../../experiments/scripts/cli-summaries.ts";

const ROOT = join(import.meta.dirname, "../..");
const shape = (c: Command): unknown => ({
  name: c.name(),
  help: c.helpInformation(),
  options: c.options.map((o) => o.flags),
  commands: c.commands.map(shape),
});

describe("the lazy CLI", () => {
  it("has commands/summaries.ts up to date with the command modules (npm run cli:summaries)", async () => {
    expect(readFileSync(join(ROOT, "experiments/commands/summaries.ts"), "utf8")).toBe(await summariesSource());
  });

  it("prints the same top-level help as the full program without loading a command module", async () => {
    const lazy = await buildLazyProgram(["node", "retrace", "--help"]);
    expect(lazy.helpInformation()).toBe(buildProgram().helpInformation());
  });

  it("registers each command from its own module with the full program's options, arguments and subcommands", async () => {
    const full = buildProgram();
    for (const cmd of full.commands) {
      const lazy = await buildLazyProgram(["node", "retrace", cmd.name(), "--help"]);
      const mine = lazy.commands.find((c) => c.name() === cmd.name());
      expect(mine, cmd.name()).toBeDefined();
      expect(shape(mine!)).toEqual(shape(cmd));
    }
  });
});
