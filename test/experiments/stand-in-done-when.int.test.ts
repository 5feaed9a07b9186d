/**
 * Issue 19's "Done when", against the stand-in (adapters/testing/stand-in: retrace's SIMULATED
 * sampling model behind the OpenAI API), through the real CLI:
 *
 * - at temperature 0.7, 3 seeds give 3 trajectories, and every request carried its draw identity
 *   as `seed` (the stand-in answers a function of seed and prompt, so distinct trajectories from
 *   one first prompt come from distinct seeds); a cached re-run makes 0 calls, same bytes;
 * - the models ideal-recovery preset: K = 5 continuations from one R are several draws, Success@K
 *   rises with K (Success@5 > Success@1 per strategy, McNemar on the failed runs), Finding 1 printed;
 * - the models end-to-end preset: recovery vs no recovery per cap (McNemar on (task, seed)),
 *   Findings 5 and 6 written with their tests.
 *
 * The models presets (experiments/configs/models/) are run as shipped but for what the stand-in
 * needs and what a test can afford: `--model retrace-stand-in`, `observation: a11y_tree` on the
 * roles that read screens (the stand-in cannot see pixels), temperature 0.7, a task sample, fewer
 * seeds, caps and forward steps. All numbers are deterministic: the stand-in's answers are a
 * function of the request's seed (the draw identity) and prompt.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startStandInServer, type StandInServer } from "../../packages/testing/src/stand-in/server.ts";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import type { EpisodeRecord } from "../../experiments/runner/episode.ts";
import type { ExperimentSummary } from "../../experiments/runner/summary.ts";
import { findingsForRuns } from "../../experiments/report/findings.ts";
import { outcomesOf, verdictLabel } from "../../experiments/report/findings-verdict.ts";
import { mcnemarExact, mcnemarVerdict, pairOutcomes } from "../../packages/evaluation/src/metrics/paired.ts";
import { formatAction } from "../../packages/core/src/action.ts";
import { cli } from "./helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-stand-in-done-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: StandInServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

async function standIn(errorRate: number): Promise<StandInServer> {
  const s = await startStandInServer({ errorRate, seed: 1 });
  servers.push(s);
  return s;
}

/**
 * A models preset as shipped, pointed at the stand-in: a11y_tree on the roles that read screens, T = 0.7, then `patch`.
 */
function modelsPreset(name: "end-to-end" | "ideal-recovery", patch: (c: Record<string, any>) => void): string {
  const c = parseYaml(
    readFileSync(new URL(`../../experiments/configs/models/${name}.yaml`, import.meta.url), "utf8"),
  ) as Record<string, any>;
  const screens = [c.forward, c.detector, ...(c.pairs ?? []).flatMap((p: any) => [p.forward, p.recovery, p.detector])];
  for (const s of screens) if (s?.kind === "model") Object.assign(s, { observation: "a11y_tree", temperature: 0.7 });
  patch(c);
  const file = join(dir, `${c.name}-${Math.random().toString(36).slice(2, 8)}.json`);
  writeFileSync(file, JSON.stringify(c));
  return file;
}

async function run(cfg: string, server: StandInServer, out: string, ...extra: string[]) {
  const r = await cli(
    "run",
    cfg,
    "--base-url",
    server.url,
    "--model",
    "retrace-stand-in",
    "--out",
    out,
    "--quiet",
    ...extra,
  );
  expect(r.stderr.split("\n").filter((l) => l.trim())).toEqual([]);
  expect(r.code).toBe(0);
  return r;
}

const linesOf = (out: string): ResultLine[] =>
  readFileSync(join(out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ResultLine);
const summaryOf = (out: string): ExperimentSummary =>
  JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as ExperimentSummary;
/** The actions an episode executed, one string per step. */
const actionsOf = (out: string, folder: string): string[] =>
  (JSON.parse(readFileSync(join(out, folder, "trajectory.json"), "utf8")) as EpisodeRecord).trajectory.steps.map((s) =>
    s.actions.map(formatAction).join("; "),
  );
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

describe("issue 19 done-when, against the stand-in over HTTP", () => {
  it("gives 3 seeds 3 trajectories at T = 0.7 from 3 request seeds, and a cached re-run makes 0 calls and writes the same bytes", async () => {
    const server = await standIn(0.3);
    const task = "files-rename-draft";
    const cfg = modelsPreset("end-to-end", (c) => {
      c.env = { kind: "simdesk", tasks: [task] };
      c.seeds = [0, 1, 2];
      c.maxRecoveryIterations = [1];
      c.options.maxForwardSteps = 15;
    });
    const cache = join(dir, "cache-e2e");
    const out1 = join(dir, "draws-1");
    await run(cfg, server, out1, "--workers", "1", "--cache", "readwrite", "--cache-dir", cache);
    const trajectories = [0, 1, 2].map((s) =>
      JSON.stringify(actionsOf(out1, join("model.no-recovery", task, String(s)))),
    );
    expect(new Set(trajectories).size).toBe(3);
    // Every request carried a draw identity as its seed (none drew from the server's own stream),
    // and the forward calls used many seeds: the three first requests (one prompt) got three draws.
    expect(server.log.length).toBeGreaterThan(0);
    expect(server.log.every((l) => l.seed.startsWith("request:"))).toBe(true);
    expect(server.log.every((l) => l.temperature === 0.7 || l.role === "summarizer" || l.role === "selector")).toBe(
      true,
    );
    const forwardSeeds = server.log.filter((l) => l.role === "forward").map((l) => l.seed);
    expect(new Set(forwardSeeds).size).toBe(forwardSeeds.length);

    const calls = server.calls;
    const out2 = join(dir, "draws-2");
    await run(cfg, server, out2, "--workers", "1", "--cache", "read", "--cache-dir", cache);
    expect(server.calls).toBe(calls);
    expect(readFileSync(join(out2, "results.jsonl"), "utf8")).toBe(readFileSync(join(out1, "results.jsonl"), "utf8"));
  }, 300_000);

  it("runs the models ideal-recovery preset: K = 5 continuations from one R are several draws, Success@K rises with K (paired test), Finding 1 is judged", async () => {
    const server = await standIn(0.4);
    const cfg = modelsPreset("ideal-recovery", (c) => {
      c.env = { kind: "simdesk", tasks: IDEAL_TASKS };
      c.seeds = [0, 1];
      c.options.maxForwardSteps = 20;
    });
    const out = join(dir, "runs", "ideal");
    await run(cfg, server, out, "--workers", "2");
    const lines = linesOf(out);
    const conts = lines.filter((l) => l.extra?.phase === "continuation");
    expect(conts.length).toBeGreaterThan(0);
    // K = 5 continuations from one R (one strategy, one failed run) are 5 draws: several action sequences.
    const groups = new Map<string, string[]>();
    for (const c of conts) {
      const g = `${c.condition}/${c.task}/${c.seed}`;
      groups.set(g, [
        ...(groups.get(g) ?? []),
        JSON.stringify(actionsOf(out, join(c.condition, c.task, `${c.seed}-k${c.extra!.k}`))),
      ]);
    }
    expect([...groups.values()].every((g) => g.length === 5)).toBe(true);
    const distinct = [...groups.values()].map((g) => new Set(g).size);
    log(`distinct action sequences among the 5 continuations of each (strategy, failed run): ${distinct.join(" ")}`);
    // A sequence repeats only when draws agree (e.g. a short, mistake-free finish); most groups differ.
    expect(distinct.filter((d) => d >= 2).length).toBeGreaterThan(distinct.length / 2);

    // Success@K per strategy: non-decreasing in K, and Success@5 > Success@1.
    const curves = summaryOf(out).successAtK!;
    expect(curves.map((c) => c.strategy).sort()).toEqual(["error-minus-1", "error-random", "llm", "zero"]);
    for (const c of curves) {
      log(`${c.condition.padEnd(10)} Success@1..5: ${c.curve.map((p) => pct(p.rate)).join(" ")} (n=${c.instances})`);
      for (let k = 1; k < c.curve.length; k++) expect(c.curve[k].rate).toBeGreaterThanOrEqual(c.curve[k - 1].rate);
      expect(c.curve[4].rate).toBeGreaterThan(c.curve[0].rate);
    }
    // Its paired test: per (strategy, failed run), did any of k = 1..5 succeed vs did k = 1?
    const atK = (K: number) =>
      new Map<string, boolean>(
        conts.filter((c) => Number(c.extra!.k) <= K).map((c) => [`${c.condition}/${c.task}/${c.seed}`, false] as const),
      );
    const at5 = atK(5),
      at1 = atK(1);
    for (const c of conts)
      if (c.success) {
        const u = `${c.condition}/${c.task}/${c.seed}`;
        at5.set(u, true);
        if (Number(c.extra!.k) === 1) at1.set(u, true);
      }
    const counts = pairOutcomes(at5, at1);
    const v = mcnemarVerdict(counts);
    log(
      `Success@5 vs Success@1, McNemar exact over ${counts.n} (strategy, failed run) units: ${counts.onlyA} vs ${counts.onlyB}, p=${mcnemarExact(counts.onlyA, counts.onlyB).toFixed(4)} -> ${v.kind}`,
    );
    expect(counts.onlyB).toBe(0);
    expect(counts.onlyA).toBeGreaterThan(0);
    expect(mcnemarExact(counts.onlyA, counts.onlyB)).toBeLessThan(1);

    // Finding 1 (past state vs full reset at K = 1) is judged from this run's results with its paired test.
    const f1 = findingsForRuns([{ dir: out, summary: summaryOf(out) }])!.findings[0];
    log(`Finding 1: ${verdictLabel(f1)} | ${f1.evidence}`);
    expect(f1.claim).toMatch(/Finding 1/);
    // decided at the cluster level when seeds share a task (the McNemar test over units beside it)
    expect(f1.verdict?.test).toMatch(/^(McNemar exact|sign test over tasks \(cluster level\))$/);
    expect(f1.evidence).toMatch(/McNemar exact over \d+ paired failed runs/);
  }, 400_000);

  it("runs the models end-to-end preset: recovery vs no recovery per cap (paired test), and the report prints Findings 5 and 6 with their tests", async () => {
    const server = await standIn(0.15);
    const cfg = modelsPreset("end-to-end", (c) => {
      c.env = { kind: "simdesk", tasks: E2E_TASKS };
      c.seeds = [0, 1, 2];
      c.maxRecoveryIterations = [1, 3];
      c.options.maxForwardSteps = 25;
    });
    const out = join(dir, "runs", "e2e");
    await run(cfg, server, out, "--workers", "2");
    const lines = linesOf(out);
    const summary = summaryOf(out);
    const rate = (cond: string) => summary.conditions.find((c) => c.condition === cond)!.success;
    const base = outcomesOf(lines, "model.no-recovery");
    expect(base.size).toBe(E2E_TASKS.length * 3);
    let best = { cap: 0, p: 1, gain: -1 };
    for (const cap of [1, 3]) {
      const cond = `model.max-rec-${cap}`;
      const counts = pairOutcomes(outcomesOf(lines, cond), base);
      const p = mcnemarExact(counts.onlyA, counts.onlyB);
      const gain = rate(cond).rate - rate("model.no-recovery").rate;
      log(
        `${cond}: ${pct(rate(cond).rate)} vs no recovery ${pct(rate("model.no-recovery").rate)} over ${counts.n} (task, seed): ${counts.onlyA} won only with recovery, ${counts.onlyB} only without, McNemar p=${p.toFixed(4)} -> ${mcnemarVerdict(counts).kind}`,
      );
      if (gain > best.gain) best = { cap, p, gain };
    }
    // Since issue 28 the stand-in knows only its skill book and the request: recovery no longer wins
    // by construction. Measured (2026-12-04): no recovery 76%, caps 1 and 3 both 73% (1 unit won only
    // with recovery, 2 only without; p = 1). Before (the stand-in played from SimDesk's hidden
    // state): 78% vs 89% / 89% (6 vs 1). The test now checks that the comparison is made and judged.
    expect(Number.isFinite(best.gain)).toBe(true);
    expect(best.p).toBeGreaterThan(0);
    // Every recovery condition ran recoveries through the stand-in's recovery role.
    expect(server.log.some((l) => l.role === "recovery")).toBe(true);

    // The report over both runs writes the findings with their paired tests.
    const r = await cli("report", join(dir, "runs"), "--quiet");
    expect(r.code).toBe(0);
    const html = readFileSync(join(dir, "runs", "report.html"), "utf8");
    const found = findingsForRuns([{ dir: out, summary }])!.findings;
    const f5 = found.find((f) => /Finding 5/.test(f.claim))!;
    const f6 = found.find((f) => /Finding 6/.test(f.claim))!;
    // Finding 6's claim follows the stand-in recoverer's measured recovery ability; a recoverer
    // measured weak gets no Finding 5 claim (the weak regime is Finding 6's), and that is said.
    expect(f6.evidence).toMatch(
      /measured recovery ability \d\.\d\d over \d+ trajectories|recovery ability not measured/,
    );
    if (!f5.verdict) expect(f5.evidence).toMatch(/capable recoverer/);
    for (const f of [f5, f6].filter((x) => x.verdict)) {
      log(`${f.claim} ${verdictLabel(f)} | ${f.evidence}`);
      expect(f.verdict!.test).toMatch(/^(McNemar exact|sign test over tasks \(cluster level\))$/);
      expect(f.evidence).toMatch(/McNemar exact over \d+ paired/);
      expect(html).toContain(escapeHtml(verdictLabel(f)));
    }
    expect(f6.verdict).toBeDefined();
  }, 400_000);
});

const IDEAL_TASKS = [
  "files-rename-draft",
  "editor-append-notes",
  "settings-dnd-previews",
  "sheet-sum-budget",
  "files-trash-two",
  "editor-replace-todo",
];
/**
 * The end-to-end sample (x 3 seeds x 3 conditions): 15 of the 24 tasks this test used to run -
 * the first 12 plus the 3 others that had a (task, seed) unit where recovery changed the outcome
 * with the old stand-in (which played from SimDesk's hidden state: no recovery 35/45, max-rec-1 and
 * max-rec-3 40/45). With the issue-28 stand-in (skill book and request only): no recovery 76%,
 * max-rec-1 and max-rec-3 73% (1 vs 2 discordant units). Deterministic under the seeds.
 */
const E2E_TASKS = [
  "files-rename-draft",
  "editor-append-notes",
  "settings-dnd-previews",
  "sheet-sum-budget",
  "files-trash-two",
  "editor-replace-todo",
  "files-new-folder-drag",
  "cross-budget-total-report",
  "settings-accent-green",
  "files-copy-readme",
  "editor-word-bank",
  "sheet-fix-price",
  "files-restore-report",
  "files-rename-folder",
  "cross-quote-to-sheet",
];
const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
/** The measured numbers, in the test's output (vitest shows console output). */
const log = (line: string) => console.log(`[stand-in done-when] ${line}`);
