/**
 * Loader for OSWorld task files (`evaluation_examples/examples/<domain>/<id>.json`). Every file
 * loads or is rejected with a reason; for each loaded task the support report lists which setup
 * steps and evaluator functions this runtime executes and which it cannot (those need a real
 * OSWorld VM, or OSWorld's own Python evaluators through the bridge) - nothing is skipped silently.
 */
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { z } from "zod";
import type { Task } from "@retrace-cua/core/task";
import { CHROME_GETTERS } from "./chrome-getters.ts";
import { idProblem, showId } from "@retrace-cua/core/store/safe-path";
import { exceedsNesting, MAX_NESTING } from "@retrace-cua/core/bounds";

/** Setup step types retrace runs itself (through an OSWorld client: VM or local control server). */
export const SUPPORTED_SETUP = [
  "execute",
  "command",
  "execute_with_verification",
  "sleep",
  "launch",
  "open",
  "activate_window",
  "close_window",
  "change_wallpaper",
  "download",
  "upload_file",
] as const;
/** Evaluator functions retrace computes itself. */
export const SUPPORTED_METRICS = [
  "exact_match",
  "check_include_exclude",
  "infeasible",
  "match_in_list",
  "compare_text_file",
  "literal_match",
] as const;
/** Result getters retrace can fetch. */
export const SUPPORTED_GETTERS = [
  "vm_file",
  "rule",
  "cloud_file_text",
  "vm_command_line",
  "vm_terminal_output",
  ...CHROME_GETTERS,
] as const;

const StepSchema = z
  .object({ type: z.string().min(1), parameters: z.record(z.string(), z.unknown()).default({}) })
  .passthrough();
const OneOrMany = <T extends z.ZodTypeAny>(s: T) => z.union([s, z.array(s)]);
const GetterSchema = z.object({ type: z.string().min(1) }).passthrough();

/** zod schema of an OSWorld task file (the fields retrace reads). */
export const OsworldTaskFileSchema = z
  .object({
    id: z.string().min(1),
    snapshot: z.string().optional(),
    instruction: z.string().min(1),
    config: z.array(StepSchema).default([]),
    related_apps: z.array(z.string()).default([]),
    evaluator: z
      .object({
        func: OneOrMany(z.string().min(1)),
        conj: z.enum(["and", "or"]).optional(),
        result: OneOrMany(GetterSchema).optional(),
        expected: OneOrMany(GetterSchema).optional(),
        options: z.unknown().optional(),
        postconfig: z.array(StepSchema).default([]),
      })
      .passthrough(),
  })
  .passthrough();
export type OsworldTaskFile = z.infer<typeof OsworldTaskFileSchema>;

/** What retrace can and cannot execute for one task. */
export interface OsworldSupport {
  supportedSetup: string[];
  /** Setup steps (config + postconfig) this runtime cannot run, with the step type. */
  unsupportedSetup: string[];
  supportedMetrics: string[];
  /** Evaluator functions only OSWorld's Python evaluators compute. */
  unsupportedMetrics: string[];
  unsupportedGetters: string[];
  /** True when everything (setup and evaluation) runs in retrace without OSWorld installed. */
  fullyNative: boolean;
}

/** A loaded OSWorld task as a retrace Task (env "osworld"), with its support report. */
export interface OsworldTask extends Task<OsworldTaskFile["config"], OsworldTaskFile["evaluator"]> {
  env: "osworld";
  domain: string;
  file: string;
  support: OsworldSupport;
  /** The task file's `proxy` flag: OSWorld runs it behind a proxy (its sites block plain access). */
  proxy: boolean;
}

const LOOPBACK = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?\//i;
/** Getters that read from the internet or a cloud account. */
const INTERNET_GETTERS = new Set([
  "cloud_file",
  "cache_file",
  "googledrive_file",
  "url_dashPattern",
  "info_from_website",
  "page_info",
  "url_path_parse",
]);
const ACCOUNT_STEPS = new Set(["googledrive", "login"]);

/** The program a launch/execute command starts (`VLC_VERBOSE=-1 vlc` -> vlc, `/usr/bin/thunderbird` -> thunderbird). */
function programOf(command: unknown): string | undefined {
  const words = Array.isArray(command)
    ? command.map(String)
    : typeof command === "string"
      ? command.trim().split(/\s+/)
      : [];
  const first = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  return first?.split("/").pop();
}

/**
 * Why a task cannot run fully offline on a retrace container desktop, one reason a line (empty:
 * it can): internet downloads, Google accounts, OSWorld's proxy, Chrome tabs, programs the image
 * lacks, and getters or metrics only OSWorld's Python code computes (unless `python` is available).
 */
export function offlineBlockers(
  t: OsworldTask,
  o: { programs: ReadonlySet<string>; python?: boolean | { metrics: boolean; full: boolean } },
): string[] {
  const out: string[] = [];
  const steps = [
    ...(t.setup as Array<{ type: string; parameters: Record<string, unknown> }>),
    ...((t.evaluator.postconfig ?? []) as Array<{ type: string; parameters: Record<string, unknown> }>),
  ];
  const hosts = new Set<string>();
  for (const s of steps) {
    if (s.type === "download")
      for (const f of (Array.isArray(s.parameters.files) ? s.parameters.files : []) as Array<{ url?: string }>)
        if (!LOOPBACK.test(String(f.url ?? ""))) hosts.add(String(f.url ?? "").replace(/^https?:\/\/([^/]+).*$/, "$1"));
    if (ACCOUNT_STEPS.has(s.type)) out.push(`a Google account (${s.type} step)`);
    if (s.type === "chrome_open_tabs" || s.type === "chrome_close_tabs" || s.type === "update_browse_history")
      out.push(`Chrome over its debugging port (${s.type} step)`);
    const text = JSON.stringify(s.parameters);
    // The desktop has no network: package installs in a set-up command need the internet.
    const install = /\b(apt(?:-get)?\s+(?:-\S+\s+)*(?:update|install)|pip3?\s+install|snap\s+install)\b/.exec(text);
    if ((s.type === "execute" || s.type === "command" || s.type === "execute_with_verification") && install)
      hosts.add(`a package install: ${install[1].split(/\s+/)[0]}`);
    if (
      !o.programs.has("gnome-terminal") &&
      (/'ctrl', ?'alt', ?'t'/.test(text) ||
        (s.type === "activate_window" && /terminal/i.test(String(s.parameters.window_name ?? ""))))
    )
      out.push("a program the desktop image lacks: gnome-terminal (opened with ctrl+alt+t)");
    if (s.type === "launch") {
      const p = programOf(s.parameters.command);
      if (p && !o.programs.has(p)) out.push(`a program the desktop image lacks: ${p}`);
    }
  }
  if (hosts.size) out.push(`internet downloads (${[...hosts].sort().join(", ")})`);
  if (t.proxy) out.push("OSWorld's proxy");
  const getters = [t.evaluator.result, t.evaluator.expected].flatMap((g) =>
    g === undefined ? [] : Array.isArray(g) ? g : [g],
  ) as Array<{ type: string }>;
  for (const g of new Set(getters.map((x) => x.type)))
    if (INTERNET_GETTERS.has(g)) out.push(`the internet (getter ${g})`);
  for (const g of new Set(getters.map((x) => x.type)))
    if ((CHROME_GETTERS as readonly string[]).includes(g) && !o.programs.has("google-chrome"))
      out.push(`a program the desktop image lacks: google-chrome (getter ${g})`);
  if (getters.some((g) => g.type === "vm_terminal_output") && !o.programs.has("gnome-terminal"))
    out.push("a program the desktop image lacks: gnome-terminal (getter vm_terminal_output)");
  const s = t.support;
  // OSWorld's metrics alone lift Python-only metrics; its environment code (`full`) lifts getters and set-up steps too.
  const py = typeof o.python === "object" ? o.python : { metrics: !!o.python, full: !!o.python };
  const python = [
    ...(py.full ? [] : s.unsupportedGetters.filter((g) => !INTERNET_GETTERS.has(g)).map((g) => `getter ${g}`)),
    ...(py.metrics || py.full ? [] : s.unsupportedMetrics.map((m) => `metric ${m}`)),
  ];
  if (python.length) out.push(`OSWorld's Python evaluators (${[...new Set(python)].join(", ")})`);
  if (!py.full)
    for (const u of new Set(s.unsupportedSetup))
      if (!ACCOUNT_STEPS.has(u) && !u.startsWith("chrome_") && u !== "update_browse_history")
        out.push(`set-up step ${u}`);
  return [...new Set(out)];
}

/** A file that could not be loaded. */
export interface OsworldRejection {
  file: string;
  reason: string;
}

/** The result of {@link loadOsworldTasks}. */
export interface OsworldLoadReport {
  tasks: OsworldTask[];
  rejected: OsworldRejection[];
  /** Counts over all loaded tasks. */
  summary: {
    loaded: number;
    rejected: number;
    fullyNative: number;
    unsupportedSetup: Record<string, number>;
    unsupportedMetrics: Record<string, number>;
  };
}

const has = (list: readonly string[], v: string) => list.includes(v);

/** The support report of one parsed task file. */
export function osworldSupport(t: OsworldTaskFile): OsworldSupport {
  const steps = [...t.config, ...t.evaluator.postconfig].map((s) => s.type);
  const funcs = Array.isArray(t.evaluator.func) ? t.evaluator.func : [t.evaluator.func];
  const getters = [t.evaluator.result, t.evaluator.expected]
    .flatMap((g) => (g === undefined ? [] : Array.isArray(g) ? g : [g]))
    .map((g) => g.type);
  const support: OsworldSupport = {
    supportedSetup: steps.filter((s) => has(SUPPORTED_SETUP, s)),
    unsupportedSetup: steps.filter((s) => !has(SUPPORTED_SETUP, s)),
    supportedMetrics: funcs.filter((f) => has(SUPPORTED_METRICS, f)),
    unsupportedMetrics: funcs.filter((f) => !has(SUPPORTED_METRICS, f)),
    unsupportedGetters: [...new Set(getters.filter((g) => !has(SUPPORTED_GETTERS, g)))],
    fullyNative: false,
  };
  support.fullyNative =
    !support.unsupportedSetup.length && !support.unsupportedMetrics.length && !support.unsupportedGetters.length;
  return support;
}

/** Parse one task file's text; returns the task or a one-line reason. */
export function parseOsworldTask(text: string, file: string, domain: string): OsworldTask | OsworldRejection {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { file, reason: `not valid JSON: ${(err as Error).message}` };
  }
  if (exceedsNesting(raw))
    return { file, reason: `nested more than ${MAX_NESTING} levels deep; an OSWorld task needs a few` };
  const parsed = OsworldTaskFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { file, reason: `${issue.path.join(".") || "(root)"}: ${issue.message}` };
  }
  const t = parsed.data;
  if (basename(file, ".json") !== t.id) return { file, reason: `id "${t.id}" does not match the file name` };
  // The id names the task's result folders: "..", separators and control characters would leave them.
  const bad = idProblem(t.id);
  if (bad)
    return { file, reason: `id ${showId(t.id)} is not usable as a folder name (${bad}); rename the file and its id` };
  return {
    id: t.id,
    instruction: t.instruction,
    env: "osworld",
    apps: t.related_apps,
    setup: t.config,
    evaluator: t.evaluator,
    tags: [domain],
    domain,
    file,
    support: osworldSupport(t),
    proxy: (t as { proxy?: unknown }).proxy === true,
  };
}

/** Load every `<domain>/<id>.json` under `dir` (or `<id>.json` directly in it). */
export async function loadOsworldTasks(dir: string): Promise<OsworldLoadReport> {
  const tasks: OsworldTask[] = [];
  const rejected: OsworldRejection[] = [];
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const files: Array<{ file: string; domain: string }> = [];
  for (const e of entries) {
    if (e.isDirectory()) {
      for (const f of (await readdir(join(dir, e.name))).sort())
        if (f.endsWith(".json")) files.push({ file: join(dir, e.name, f), domain: e.name });
    } else if (e.name.endsWith(".json")) files.push({ file: join(dir, e.name), domain: basename(dir) });
  }
  for (const { file, domain } of files) {
    const r = parseOsworldTask(await readFile(file, "utf8"), file, domain);
    if ("reason" in r) rejected.push(r);
    else tasks.push(r);
  }
  const count = (key: "unsupportedSetup" | "unsupportedMetrics") => {
    const out: Record<string, number> = {};
    for (const t of tasks) for (const v of new Set(t.support[key])) out[v] = (out[v] ?? 0) + 1;
    return out;
  };
  return {
    tasks,
    rejected,
    summary: {
      loaded: tasks.length,
      rejected: rejected.length,
      fullyNative: tasks.filter((t) => t.support.fullyNative).length,
      unsupportedSetup: count("unsupportedSetup"),
      unsupportedMetrics: count("unsupportedMetrics"),
    },
  };
}
