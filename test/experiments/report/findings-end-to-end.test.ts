/**
 * The paper's findings checked on any run folder, end-to-end runs: model-backed runs get the same
 * claims and noise language as the demo, and findings that cannot be judged say why.
 */
import { describe, expect, it } from "vitest";
import { wilsonInterval } from "../../../packages/evaluation/src/metrics/wilson.ts";
import { computeFindings } from "../../../experiments/report/findings.ts";
import { findingVerdict } from "../../../experiments/report/html.ts";
import { parseExperimentConfig } from "../../../experiments/config/load.ts";
import type { EndToEndConfig } from "../../../experiments/config/schema.ts";
import type { ResultLine } from "../../../experiments/runner/results-log.ts";
import type { ConditionSummary, ExperimentSummary } from "../../../experiments/runner/summary.ts";
import { cond, e2e, e2eInput, linesOf, run, sim } from "./helpers/findings.ts";

describe("computeFindings", () => {
  it("judges a model-backed end-to-end run with paired McNemar tests and says Finding 1 cannot be judged without an ideal-recovery run", () => {
    // nested successes: max-rec-1 wins 4 units the baseline lost (too few to tell), max-rec-3 wins 18
    const all = computeFindings(
      e2eInput([run("gpt.no-recovery", 20, 60), run("gpt.max-rec-1", 24, 60), run("gpt.max-rec-3", 38, 60)]),
    );
    expect(all.map((x) => /Finding (\d)/.exec(x.claim)![1])).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(all[0]).toMatchObject({ holds: null });
    expect(all[0].evidence).toMatch(/cannot be judged: no ideal-recovery run/);
    expect(all.slice(1, 4).every((x) => x.holds === null && /cannot be judged/.test(x.evidence))).toBe(true);
    expect(all[1].evidence).toMatch(/no recovery evaluation \(recovery-eval\.json\)/);
    const f5 = all[4];
    expect(f5.claim).toBe(
      'Recovery improves task success over no recovery at every setting of max recovery iterations (recoverer "gpt") (Finding 5).',
    );
    expect(f5).toMatchObject({
      holds: null,
      verdict: { kind: "cannot-tell", test: "McNemar exact", n: 60, onlyA: 4, onlyB: 0 },
    });
    expect(findingVerdict(f5)).toBe("cannot tell (n too small: 4 discordant pairs, fewer than 6)");
    expect(f5.evidence).toContain(
      "gpt: no recovery 33.3%, max-rec-1 40.0%, max-rec-3 63.3%; mean gain 18.3 points (the paper: 2.12). Weakest setting, max-rec-1 vs none: McNemar exact over 60 paired (task, seed) units: 4 won only by max-rec-1, 0 only by no recovery",
    );
    expect(f5.evidence).toContain("Computed from model-e2e's results.jsonl, paired by task and seed");
    const f6 = all[5];
    expect(f6.claim).toBe('Recoverer "gpt" gains from more recovery attempts (Finding 6).');
    // 3 vs 1: 14 discordant pairs, all for 3: p = 2 / 2^14
    expect(f6).toMatchObject({ holds: true, significant: true, verdict: { kind: "holds", onlyA: 14, onlyB: 0 } });
    expect(f6.verdict!.p).toBeCloseTo(2 / 2 ** 14, 10);
    expect(findingVerdict(f6)).toBe("HOLDS (p=1.2e-4)");
  });

  it("says cannot tell for 0/6 vs 0/6, and direction only when the paired lead is within noise", () => {
    const zero = computeFindings(e2eInput([run("m.no-recovery", 0, 6), run("m.max-rec-1", 0, 6)]));
    expect(findingVerdict(zero[4])).toBe("cannot tell (n too small: 0 discordant pairs, fewer than 6)");
    // 7 units won only with recovery, 4 only without: p = 0.549
    const mixed = [run("m.no-recovery", 0, 0), run("m.max-rec-1", 0, 0)];
    mixed[0] = {
      c: cond("m.no-recovery", 14, 40),
      lines: linesOf("m.no-recovery", 40, (i) => i < 10 || (i >= 20 && i < 24)),
    };
    mixed[1] = { c: cond("m.max-rec-1", 17, 40), lines: linesOf("m.max-rec-1", 40, (i) => i < 17) };
    const f5 = computeFindings(e2eInput(mixed))[4];
    expect(f5).toMatchObject({
      holds: null,
      significant: false,
      verdict: { kind: "direction-only", onlyA: 7, onlyB: 4 },
    });
    expect(findingVerdict(f5)).toBe("direction only (p=0.549)");
  });

  it("chooses Finding 6's claim from the recoverer each pair's config gives it, not from the pair's name", () => {
    const config = parseExperimentConfig({
      kind: "end-to-end",
      name: "x",
      maxRecoveryIterations: [1, 5],
      pairs: [
        { name: "weak", forward: sim("default"), recovery: sim("skilled") },
        { name: "other", baseline: false, forward: sim("default"), recovery: sim("weak") },
      ],
    }) as EndToEndConfig;
    const f = computeFindings(
      e2eInput(
        [
          run("weak.no-recovery", 30, 60),
          run("weak.max-rec-1", 31, 60),
          run("weak.max-rec-5", 33, 60),
          run("other.max-rec-1", 28, 60),
          run("other.max-rec-5", 20, 60),
        ],
        config,
      ),
    );
    const six = f.filter((x) => x.claim.includes("(Finding 6)"));
    expect(six.map((x) => x.claim)).toEqual([
      'Recoverer "weak" gains from more recovery attempts (Finding 6).',
      'Recoverer "other" (simulated weak recoverer (skill 0.3)) can lose against no recovery (Finding 6).',
    ]);
    // the weak recoverer's worst cap loses 10 units the baseline won and wins none: p = 2 / 2^10,
    // Holm over its 2 caps (the other cap cannot tell: p counts as 1) -> 4 / 2^10, then over the
    // 2 pairs of Finding 6 (pair "weak" cannot tell) -> 8 / 2^10
    expect(six[1]).toMatchObject({
      holds: true,
      verdict: { kind: "holds", onlyA: 10, onlyB: 0, correction: { method: "Holm", m: 2, rawP: 2 / 1024 } },
    });
    expect(six[1].verdict!.p).toBeCloseTo(8 / 1024, 12);
    expect(findingVerdict(six[1])).toBe(
      "HOLDS (p=0.008, Holm-adjusted over 2 settings of max recovery iterations, then 2 pairs (unadjusted 0.002))",
    );
    expect(six[1].evidence).toContain('baseline of pair "weak"');
    // Finding 5 is claimed for the capable recoverer only
    expect(f.filter((x) => x.claim.includes("(Finding 5)")).map((x) => x.claim)).toEqual([
      'Recovery improves task success over no recovery at every setting of max recovery iterations (recoverer "weak") (Finding 5).',
    ]);
  });

  it("reads Finding 6's claim from each recoverer's measured recovery ability, not its label", () => {
    const config = parseExperimentConfig({
      kind: "end-to-end",
      name: "x",
      maxRecoveryIterations: [1, 5],
      pairs: [{ name: "p", forward: sim("default"), recovery: sim("skilled") }],
    }) as EndToEndConfig;
    const withAbility = (r: { c: ConditionSummary; lines: ResultLine[] }, ability: number) => ({
      ...r,
      c: { ...r.c, stability: { ...r.c.stability, recoveryAbility: ability, eligibleForRecovery: 20 } },
    });
    const runs = (ability: number) => [
      run("p.no-recovery", 30, 60),
      withAbility(run("p.max-rec-1", 28, 60), ability),
      withAbility(run("p.max-rec-5", 20, 60), ability),
    ];
    const six = (ability: number) =>
      computeFindings(e2eInput(runs(ability), config)).find((x) => x.claim.includes("(Finding 6)"))!;
    // labelled skilled, but it came back from 20% of deviations: the weak recoverer's claim
    expect(six(0.2).claim).toBe(
      'Recoverer "p" (simulated skilled recoverer (skill 0.9)) can lose against no recovery (Finding 6).',
    );
    expect(six(0.2).evidence).toContain(
      "measured recovery ability 0.20 over 40 trajectories with a deviation (weak: weak below 0.5), which decides the claim",
    );
    expect(six(0.8).claim).toBe('Recoverer "p" gains from more recovery attempts (Finding 6).');
  });

  it("judges Finding 1 on continuation k=1 of each strategy paired by failed run, not on pooled rates", () => {
    // 20 failed runs; R=E-1 restores in runs 0..11 at k=1, R=0 in runs 10..13: 10 won only by R=E-1, 2 only by R=0
    const cont = (condition: string, strategy: string, won: (i: number, k: number) => boolean) =>
      Array.from({ length: 20 }, (_, i) =>
        [1, 2].map((k) => ({
          ...linesOf(condition, 20, () => false)[i],
          key: `${condition}/t${i}/0/k${k}`,
          success: won(i, k),
          extra: { phase: "continuation", strategy, k },
        })),
      ).flat() as ResultLine[];
    const idealLines = [
      ...cont("R=E-1", "error-minus-1", (i, k) => (k === 1 ? i < 12 : i < 14)),
      ...cont("R=0", "zero", (i, k) => (k === 1 ? i >= 10 && i < 14 : i < 14)),
    ];
    const curve = (s1: number, s2: number) => [wilsonInterval(s1, 20), wilsonInterval(s2, 20)];
    const ideal: ExperimentSummary = {
      experiment: "ideal",
      kind: "ideal-recovery",
      simulated: false,
      note: "",
      episodes: 80,
      envErrors: 0,
      conditions: [],
      successAtK: [
        { condition: "R=0", strategy: "zero", instances: 20, curve: curve(4, 14), meanRecoveryStep: 0 },
        { condition: "R=E-1", strategy: "error-minus-1", instances: 20, curve: curve(12, 14), meanRecoveryStep: 2 },
      ],
    };
    const f1 = computeFindings({ ideal, idealLines })[0];
    expect(f1).toMatchObject({
      holds: true,
      verdict: { kind: "holds", test: "McNemar exact", n: 20, onlyA: 10, onlyB: 2 },
    });
    expect(f1.verdict!.p).toBeCloseTo(0.03857422, 7);
    expect(f1.evidence).toContain(
      "R=E-1 vs R=0: McNemar exact over 20 paired failed runs (continuation k=1 of each): 10 won only by R=E-1, 2 only by R=0, p=0.039",
    );
    expect(f1.evidence).toContain("the gap narrows");
    expect(computeFindings({ ideal })[0].evidence).toMatch(/no results\.jsonl to pair/);
  });

  it("decides Finding 5 at the task level when seeds share tasks, the (task, seed) test beside it, labelled", () => {
    // 4 tasks x 3 seeds: recovery wins every seed of tasks 0-2 that no recovery lost (9 units), nothing else differs
    const unitLines = (condition: string, won: (t: number, s: number) => boolean) =>
      Array.from({ length: 12 }, (_, i) => ({
        ...linesOf(condition, 12, () => false)[i],
        key: `${condition}/t${i % 4}/${Math.floor(i / 4)}`,
        task: `t${i % 4}`,
        seed: Math.floor(i / 4),
        success: won(i % 4, Math.floor(i / 4)),
      })) as ResultLine[];
    const lines = [...unitLines("a.no-recovery", () => false), ...unitLines("a.max-rec-1", (t) => t < 3)];
    const f5 = computeFindings({
      e2e: e2e([cond("a.no-recovery", 0, 12), cond("a.max-rec-1", 9, 12)]),
      e2eLines: lines,
    }).find((x) => x.claim.includes("(Finding 5)"))!;
    // 9 discordant (task, seed) units would give p = 0.004, but they are 3 tasks: cannot tell
    expect(f5).toMatchObject({
      holds: null,
      verdict: {
        kind: "cannot-tell",
        clusters: "tasks",
        n: 4,
        onlyA: 3,
        onlyB: 0,
        unitLevel: { n: 12, onlyA: 9, onlyB: 0 },
      },
    });
    expect(f5.verdict!.unitLevel!.p).toBeCloseTo(2 / 512, 12);
    expect(findingVerdict(f5)).toBe("cannot tell (n too small: 3 deciding tasks, fewer than 6)");
    expect(f5.evidence).toContain(
      "sign test over tasks (cluster level) over 4 tasks: 3 favour max-rec-1, 0 favour no recovery, 1 tied; unit level (labelled, not independent: units share tasks), McNemar exact over 12 paired (task, seed) units: 9 won only by max-rec-1, 0 only by no recovery, p=0.004",
    );
  });

  it("says why a pair with one setting of max recovery iterations or no baseline cannot be judged", () => {
    const f6 = (fs: ReturnType<typeof computeFindings>) => fs.find((x) => x.claim.includes("(Finding 6)"))!;
    const one = computeFindings(e2eInput([run("a.no-recovery", 1, 10), run("a.max-rec-3", 2, 10)]));
    expect(f6(one)).toMatchObject({ holds: null });
    expect(f6(one).evidence).toMatch(/one setting of max recovery iterations \(3\); it needs two/);
    const none = computeFindings(e2eInput([run("a.max-rec-1", 1, 10), run("a.max-rec-3", 2, 10)]));
    expect(f6(none).evidence).toMatch(/no no-recovery baseline/);
    expect(none.find((x) => x.claim.includes("(Finding 5)"))!.evidence).toMatch(
      /pair "a" needs a no-recovery baseline/,
    );
    expect(f6(computeFindings({})).evidence).toMatch(/no end-to-end run/);
  });
});
