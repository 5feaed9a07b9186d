/**
 * Every `npx retrace ...` command written in a fenced block of README.md or docs/*.md names a real
 * command and only flags that command has, and every repository file it names exists; the ones
 * that need no server or model run as written (`--help`, `--version`, `tasks`). Docs drift (a
 * renamed flag, a moved config) fails here instead of in a newcomer's terminal.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../experiments/cli.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DOCS = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => join("docs", f))];

/** The `npx retrace` commands of a markdown file's fenced blocks, continuation lines joined. */
function commandsIn(file: string): Array<{ file: string; line: string }> {
  const text = readFileSync(join(ROOT, file), "utf8");
  const out: Array<{ file: string; line: string }> = [];
  for (const block of text.match(/```[a-z]*\n[\s\S]*?```/g) ?? []) {
    const joined = block.replace(/\\\n\s*/g, " ");
    for (const raw of joined.split("\n")) {
      const line = raw.replace(/\s+#.*$/, "").trim();
      const at = line.indexOf("npx retrace");
      if (at >= 0) out.push({ file, line: line.slice(at).split(/\s+(&&|\|\||;)\s+/)[0] });
    }
  }
  return out;
}

/** The command a token list names (deepest subcommand) and the tokens after it. */
function resolveCommand(program: Command, tokens: string[]): { cmd: Command; rest: string[] } {
  let cmd = program;
  let i = 0;
  while (i < tokens.length) {
    const sub = cmd.commands.find((c) => c.name() === tokens[i] || c.aliases().includes(tokens[i]));
    if (!sub) break;
    cmd = sub;
    i++;
  }
  return { cmd, rest: tokens.slice(i) };
}

const ALL = DOCS.flatMap(commandsIn);

describe("the commands written in README.md and docs/", () => {
  it("are found (the docs show the CLI as npx retrace)", () => {
    expect(ALL.length).toBeGreaterThanOrEqual(15);
    expect(new Set(ALL.map((c) => c.file))).toContain("README.md");
  });

  it("name real commands and only flags those commands have", () => {
    const program = buildProgram();
    const problems: string[] = [];
    for (const { file, line } of ALL) {
      const tokens = line.split(/\s+/).slice(2);
      const { cmd, rest } = resolveCommand(program, tokens);
      if (cmd === program && !rest.every((t) => ["--help", "-h", "--version", "-V"].includes(t))) {
        problems.push(`${file}: "${line}": no such command`);
        continue;
      }
      const flags = new Set([...cmd.options.flatMap((o) => [o.long, o.short]), "--help", "-h"].filter(Boolean) as string[]);
      for (const t of rest) {
        if (!t.startsWith("-")) continue;
        const flag = t.split("=")[0];
        if (!flags.has(flag)) problems.push(`${file}: "${line}": ${cmd.name()} has no ${flag}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("name repository files that exist (configs, scripts)", () => {
    const missing = ALL.flatMap(({ file, line }) =>
      line.split(/\s+/).filter((t) => /^(experiments|adapters|test|docs)\/\S+\.(ya?ml|json|ts)$/.test(t) && !existsSync(join(ROOT, t))).map((t) => `${file}: ${t}`),
    );
    expect(missing).toEqual([]);
  });

  it("run as written when they need no server: --version, --help, tasks", async () => {
    const run = promisify(execFile);
    const bin = join(ROOT, "experiments/bin/retrace.mjs");
    const version = await run(process.execPath, [bin, "--version"], { cwd: ROOT });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
    const tasks = await run(process.execPath, [bin, "tasks"], { cwd: ROOT });
    expect(tasks.stdout).toContain("files-");
    const help = await run(process.execPath, [bin, "run", "--help"], { cwd: ROOT });
    expect(help.stdout).toContain("--resume");
  }, 120_000);
});
