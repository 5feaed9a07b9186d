/**
 * The `npx retrace ...` commands written in README.md and docs/*.md (fenced blocks and inline
 * code), each with its file and line, and how test/docs-commands.test.ts runs each one: as
 * written with small limits (runs/ and output files moved into a scratch folder), or with
 * `--help` when it needs something the test does not have (a model endpoint, Redis, PostgreSQL,
 * an X11 desktop) or holds placeholders. The needs are listed by hand, each with its reason.
 */
import { readdirSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";

/** Repository root. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** One documented command: where it is written and its text (continuation lines joined). */
export interface DocCommand {
  file: string;
  /** 1-based line where the command starts. */
  line: number;
  text: string;
  /** true for `inline code`, false for a fenced block. */
  inline: boolean;
}

/** The markdown files the test reads: README.md and docs/*.md. */
export const DOC_FILES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => join("docs", f)),
];

const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length;

/** The `npx retrace` commands of one markdown file, in the order they are written. */
export function commandsIn(file: string): DocCommand[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const out: DocCommand[] = [];
  const fences: Array<[number, number]> = [];
  for (const m of text.matchAll(/```[a-z]*\n[\s\S]*?```/g)) {
    fences.push([m.index!, m.index! + m[0].length]);
    let offset = m.index!;
    // Continuation lines (`\` at the end) belong to the line they continue.
    for (const raw of m[0].split(/(?<!\\)\n/)) {
      const line = raw
        .replace(/\\\n\s*/g, " ")
        .replace(/\s+#.*$/, "")
        .trim();
      const at = line.indexOf("npx retrace");
      if (at >= 0)
        out.push({
          file,
          line: lineAt(text, offset),
          text: line.slice(at).split(/\s+(&&|\|\||;)\s+/)[0],
          inline: false,
        });
      offset += raw.length + 1;
    }
  }
  for (const m of text.matchAll(/`(npx retrace[^`]*)`/g)) {
    if (fences.some(([a, b]) => m.index! >= a && m.index! < b)) continue;
    out.push({ file, line: lineAt(text, m.index!), text: m[1].trim(), inline: true });
  }
  return out.sort((a, b) => a.line - b.line);
}

/** Every documented command, file by file. */
export function docCommands(): DocCommand[] {
  return DOC_FILES.flatMap(commandsIn);
}

/** The command a token list names (deepest subcommand) and the tokens after it. */
export function resolveCommand(program: Command, tokens: string[]): { cmd: Command; path: string[]; rest: string[] } {
  let cmd = program;
  let i = 0;
  while (i < tokens.length) {
    const sub = cmd.commands.find((c) => c.name() === tokens[i] || c.aliases().includes(tokens[i]));
    if (!sub) break;
    cmd = sub;
    i++;
  }
  return { cmd, path: tokens.slice(0, i), rest: tokens.slice(i) };
}

/** Tokens after `npx retrace`, with optional-part brackets dropped (`[--cache-dir X]`). */
export function tokensOf(cmd: DocCommand): string[] {
  return cmd.text.replace(/[[\]]/g, "").split(/\s+/).slice(2);
}

/** A token that stands for something the reader fills in: CONFIG, DIR, `...`, $VAR. */
export const isPlaceholder = (t: string) => /^[A-Z][A-Z_]+$/.test(t) || t === "..." || t.startsWith("$");

/**
 * What a documented command needs that this test does not start, and why it then runs with
 * `--help` only. The first rule that matches a command applies; every rule must match at least
 * one command (the test checks), so the list cannot go stale silently.
 */
export const NEEDS: Array<{ match: RegExp; reason: string }> = [
  {
    match: /^npx retrace stand-in\b/,
    reason: "is a server that serves until Ctrl-C (test/adapters/testing/stand-in/cli.int.test.ts starts and stops it)",
  },
  {
    match: /^npx retrace worker\b|--queue\b/,
    reason: "needs Redis and PostgreSQL (test/experiments/distributed/ runs them on private servers)",
  },
  {
    match: /^npx retrace (status|cancel)\b/,
    reason: "reads a distributed run's queue.json and needs Redis and PostgreSQL",
  },
  {
    match: /--env x11\b/,
    reason: "needs a model endpoint and an X11 desktop (test/experiments/models-x11.int.test.ts)",
  },
  {
    match: /--base-url\b|--policy\b|experiments\/configs\/models\//,
    reason:
      "needs a model endpoint (--base-url); the model path runs against scripted servers in test/experiments/models-*.int.test.ts and the stand-in in stand-in-done-when.int.test.ts",
  },
  {
    match: /^npx retrace (report|label-sample) runs\/(qwen-e2e|reval)\b/,
    reason: "reads the output of a model-backed command above it",
  },
  {
    match: /^npx retrace osworld-check\b/,
    reason:
      "needs a Docker engine and the desktop image (test/adapters/environments/osworld/osworld-api-docker.int.test.ts checks a seeded sample of 10 tasks)",
  },
  {
    match: /^npx retrace demo\b/,
    reason: "the tiny demo takes ~40 s; test/experiments/demo.int.test.ts runs it (runDemo, the command's body)",
  },
];

/** How the test runs one command: the argv, or `--help` with the reason. */
export type Plan = { kind: "run"; args: string[] } | { kind: "help"; args: string[]; reason: string };

/**
 * The plan for a command. Paths under `runs/` and relative --out files go under `scratch`, so
 * the commands of one document see each other's output as a reader's would; a command with a
 * `--limit` gets `--limit 1` (unless the doc narrows it already), demo `--size tiny`, and
 * `--quiet` where it has one; a command whose --out defaults to a folder in the working
 * directory gets one in `scratch`.
 */
export function planFor(program: Command, cmd: DocCommand, scratch: string, opts: { chromium: boolean }): Plan {
  const tokens = tokensOf(cmd);
  const { cmd: command, path } = resolveCommand(program, tokens);
  const need =
    NEEDS.find((n) => n.match.test(cmd.text)) ??
    (!opts.chromium && /^npx retrace run .*browser/.test(cmd.text)
      ? { reason: "needs Chromium (/usr/bin/chromium), not installed here" }
      : undefined);
  const help = (reason: string): Plan => ({ kind: "help", args: [...path, "--help"], reason });
  if (need) return help(need.reason);
  if (tokens.some(isPlaceholder)) return help("holds placeholders for the reader to fill in");
  const has = (flag: string) => command.options.some((o) => o.long === flag);
  const args = tokens.map((t, i) => {
    const flagValue = i > 0 && ["--out", "-o"].includes(tokens[i - 1]);
    if (t.startsWith("runs/") || (flagValue && !isAbsolute(t))) return join(scratch, t);
    return t;
  });
  const configRun = path.length === 1 && ["run", "sweep"].includes(path[0]) && args.length > 1;
  if (
    has("--limit") &&
    (configRun || !["run", "sweep"].includes(path[0])) &&
    !args.includes("--limit") &&
    !args.includes("--tasks")
  )
    args.push("--limit", "1");
  if (has("--size") && !args.includes("--size")) args.push("--size", "tiny");
  if (has("--quiet") && !args.includes("--quiet")) args.push("--quiet");
  // A default --out in the working directory (a timestamped runs/ folder, runs/recovery-dataset,
  // label-sample.jsonl) would land in the repository: one in scratch instead, named after the
  // arguments (the same for commands that differ only in order, e.g. `demo` and `demo --size tiny`).
  const out = command.options.find((o) => o.long === "--out");
  const defaultsHere =
    out &&
    ((typeof out.defaultValue === "string" && !isAbsolute(out.defaultValue)) ||
      /\(default: runs\//.test(out.description));
  if (defaultsHere && !args.includes("--out") && !args.includes("-o"))
    args.push(
      "--out",
      join(
        scratch,
        `default-out-${[...args]
          .sort()
          .join("_")
          .replace(/[^A-Za-z0-9]+/g, "-")
          .slice(0, 80)}`,
      ),
    );
  return { kind: "run", args };
}
