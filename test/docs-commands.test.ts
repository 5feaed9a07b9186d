/**
 * Every `npx retrace ...` command written in README.md or docs/*.md (fenced blocks and inline
 * code) names a real command and only flags that command has, and every repository file it names
 * exists. Then each one runs: as written with small limits (`--limit 1`, `--size tiny`, output in
 * a scratch folder) when it needs no server, else `--help`, with the reason listed in
 * test/helpers/doc-commands.ts (model endpoint, Redis/PostgreSQL, X11). Docs drift (a renamed
 * flag, a moved config, a folder a later command cannot find) fails here, naming the file and
 * line, instead of in a newcomer's terminal.
 */
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildProgram } from "../experiments/cli.ts";
import { cli } from "./experiments/helpers/corpus.ts";
import { docCommands, isPlaceholder, NEEDS, planFor, resolveCommand, ROOT, tokensOf } from "./helpers/doc-commands.ts";

const ALL = docCommands();
const where = (c: { file: string; line: number; text: string }) => `${c.file}:${c.line}: "${c.text}"`;
const scratch = mkdtempSync(join(tmpdir(), "retrace-docs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the commands written in README.md and docs/", () => {
  it("are found, fenced and inline (the docs show the CLI as npx retrace)", () => {
    expect(ALL.filter((c) => !c.inline).length).toBeGreaterThanOrEqual(15);
    expect(ALL.filter((c) => c.inline).length).toBeGreaterThanOrEqual(15);
    expect(new Set(ALL.map((c) => c.file))).toContain("README.md");
    // line numbers point at the command itself
    for (const c of ALL)
      expect(readFileSync(join(ROOT, c.file), "utf8").split("\n")[c.line - 1], where(c)).toContain("npx retrace");
  });

  it("name real commands and only flags those commands have", () => {
    const program = buildProgram();
    const problems: string[] = [];
    for (const c of ALL) {
      const { cmd, rest } = resolveCommand(program, tokensOf(c));
      if (cmd === program && !rest.every((t) => ["--help", "-h", "--version", "-V"].includes(t))) {
        problems.push(`${where(c)}: no such command`);
        continue;
      }
      const flags = new Set(
        [...cmd.options.flatMap((o) => [o.long, o.short]), "--help", "-h"].filter(Boolean) as string[],
      );
      for (const t of rest) {
        if (!t.startsWith("-")) continue;
        const flag = t.split("=")[0];
        if (!flags.has(flag)) problems.push(`${where(c)}: ${cmd.name()} has no ${flag}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("name repository files that exist (configs, scripts)", () => {
    const missing = ALL.flatMap((c) =>
      tokensOf(c)
        .filter((t) => /^(experiments|adapters|test|docs)\/\S+\.(ya?ml|json|ts)$/.test(t) && !existsSync(join(ROOT, t)))
        .map((t) => `${where(c)}: ${t}`),
    );
    expect(missing).toEqual([]);
  });

  it("list a reason for every command that only gets --help, and each reason still applies to some command", () => {
    const program = buildProgram();
    const plans = ALL.map((c) => planFor(program, c, scratch, { chromium: true }));
    for (const n of NEEDS)
      expect(
        ALL.some((c) => n.match.test(c.text)),
        `no documented command matches ${n.match}; drop the rule`,
      ).toBe(true);
    // Most commands run as written; --help is the exception.
    expect(plans.filter((p) => p.kind === "run").length).toBeGreaterThanOrEqual(10);
    for (const [i, p] of plans.entries())
      if (p.kind === "help") expect(p.reason.length, where(ALL[i])).toBeGreaterThan(10);
    for (const c of ALL.filter((x) => tokensOf(x).some(isPlaceholder)))
      expect(planFor(program, c, scratch, { chromium: true }).kind, where(c)).toBe("help");
    // nothing is written into the repository: every output goes under the scratch folder
    for (const p of plans)
      if (p.kind === "run")
        for (const [i, t] of p.args.entries())
          if (["--out", "-o"].includes(p.args[i - 1] ?? "")) expect(t.startsWith(scratch), t).toBe(true);
  });

  it("run through the launcher npx runs (experiments/bin/retrace.mjs), which stops quietly when the reader closes the pipe (retrace tasks | head)", async () => {
    const proc = spawn(process.execPath, [join(ROOT, "experiments/bin/retrace.mjs"), "tasks"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr.on("data", (c) => (stderr += String(c)));
    proc.stdout.destroy(); // the reader is gone before the first line, like `head` after its lines
    const code = await new Promise<number | null>((resolve) => proc.on("close", resolve));
    expect(stderr).not.toMatch(/EPIPE|Unhandled|at /);
    expect(code).toBe(0);
  }, 60_000);

  it("run as written with small limits, or with --help where they need a server", async () => {
    const program = buildProgram();
    const chromium = existsSync("/usr/bin/chromium") || process.env.CI === "true";
    const done = new Map<string, string>();
    const failures: string[] = [];
    for (const c of ALL) {
      const plan = planFor(program, c, scratch, { chromium });
      // `demo` and `demo --size tiny` (or a command written twice) run once.
      const key = [...plan.args].sort().join(" ");
      if (done.has(key)) continue;
      const started = Date.now();
      const r = await cli(plan.args);
      done.set(key, r.stdout);
      // RETRACE_DOCS_TIMINGS=FILE logs each command's wall time (what the file's budget is spent on)
      if (process.env.RETRACE_DOCS_TIMINGS)
        appendFileSync(
          process.env.RETRACE_DOCS_TIMINGS,
          `${((Date.now() - started) / 1000).toFixed(1)} s  exit ${r.code}  ${plan.args.join(" ")}\n`,
        );
      const said = `${r.stderr}${r.stdout}`.trim().split("\n").slice(-3).join(" | ");
      if (r.code !== 0) failures.push(`${where(c)} -> retrace ${plan.args.join(" ")}: exit ${r.code}: ${said}`);
      else if (plan.kind === "help" && !r.stdout.includes("Usage: retrace"))
        failures.push(`${where(c)} -> --help printed no usage: ${said}`);
    }
    expect(failures).toEqual([]);
    // What they print and write is what the docs say they do.
    expect(done.get("--version")?.trim()).toBe(
      JSON.parse(readFileSync(join(ROOT, "packages/retrace-cua/package.json"), "utf8")).version,
    );
    expect(done.get("tasks")).toContain("files-");
    expect(existsSync(join(scratch, "runs/e2e/results.jsonl"))).toBe(true);
    expect(existsSync(join(scratch, "runs/e2e/report.html"))).toBe(true);
    expect(existsSync(join(scratch, "runs/e2e-osworld"))).toBe(true);
  }, 300_000);
});
