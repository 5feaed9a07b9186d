/**
 * docs/cli.md lists every command of the CLI (issue 37: it once left out run-model, label-sample
 * and osworld-check), each as `npx retrace <command>` with its subcommand path, and names the
 * current flag of each renamed knob (the old flags are hidden from --help).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Command } from "commander";
import { buildProgram } from "../../experiments/cli.ts";

const DOC = readFileSync(join(import.meta.dirname, "../../docs/cli.md"), "utf8");

/** Every command path: "run", "dataset build", "env gc", ... (a group with subcommands lists them instead). */
function commandPaths(cmd: Command, prefix = ""): string[] {
  return cmd.commands.flatMap((c) => {
    const path = `${prefix}${c.name()}`;
    return c.commands.length ? commandPaths(c, `${path} `) : [path];
  });
}

describe("docs/cli.md", () => {
  const paths = commandPaths(buildProgram());

  it("finds the commands to check (the program has its groups and subcommands)", () => {
    expect(paths).toEqual(
      expect.arrayContaining([
        "run",
        "sweep",
        "run-model",
        "label-sample",
        "osworld-check",
        "dataset build",
        "env check",
        "env gc",
        "worker",
      ]),
    );
    expect(paths.length).toBeGreaterThanOrEqual(20);
  });

  it("lists every command of the CLI as `npx retrace <command>`", () => {
    const missing = paths.filter((p) => !DOC.includes(`\`npx retrace ${p}\``) && !DOC.includes(`\`npx retrace ${p} `));
    expect(missing, `add these commands to docs/cli.md: ${missing.join(", ")}`).toEqual([]);
  });

  it("names the current flags of the renamed knobs, whose old flags --help hides", () => {
    const flags = (path: string[]) => {
      let c: Command = buildProgram();
      for (const name of path) c = c.commands.find((x) => x.name() === name)!;
      return new Map(c.options.map((o) => [o.long, o.hidden]));
    };
    expect(flags(["sweep"]).get("--retry-cap")).toBe(true);
    expect(flags(["sweep"]).get("--max-recovery-iterations")).toBe(false);
    expect(flags(["eval-recovery"]).get("--budgets")).toBe(true);
    expect(flags(["eval-recovery"]).get("--recovery-budget")).toBe(false);
    expect(DOC).toContain("`sweep --max-recovery-iterations`");
    expect(DOC).toContain("`eval-recovery --recovery-budget`");
  });
});
