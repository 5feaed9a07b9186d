/**
 * The human-labels file of `eval-recovery --agreement --labels`: JSONL `{run, restored}` lines,
 * validated with zod; a bad line stops the load with one error naming the file and line, and
 * label ids that match no run of the evaluation are reported back.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import type { RecoveryRun } from "../../../packages/evaluation/src/eval/run.ts";
import { loadLabels, matchLabels, parseLabels, runIdOf } from "../../../experiments/recovery-eval/labels.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-labels-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ok = '{"run": "a|explicit-m/0-E|r1", "restored": true}';

function errorOf(text: string): string {
  try {
    parseLabels(text, "labels.jsonl");
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).not.toContain("\n");
    return (err as Error).message;
  }
  throw new Error("expected the labels to be refused");
}

describe("parseLabels", () => {
  it("reads run ids and verdicts, skipping blank lines and keeping the line numbers", () => {
    const labels = parseLabels(
      `${ok}\n\n{"run": "b|implicit/0-E|r3", "restored": false, "task": "t", "target": "/x.png"}\n`,
      "f",
    );
    expect(labels).toEqual([
      { run: "a|explicit-m/0-E|r1", restored: true, line: 1 },
      { run: "b|implicit/0-E|r3", restored: false, line: 3 },
    ]);
  });

  it("names the file and line of invalid JSON", () => {
    expect(errorOf(`${ok}\n{"run": "b", restored: true}`)).toMatch(
      /^labels\.jsonl:2: not valid JSON \(.*\); each line is \{"run": "<run id>", "restored": true\|false\}$/,
    );
  });

  it("asks to fill in an unlabelled line of a label-sample sheet", () => {
    expect(errorOf(`${ok}\n${ok.replace("a|", "c|")}\n{"run": "b", "restored": null, "task": "t"}`)).toBe(
      "labels.jsonl:3: restored: fill in restored: true or false (or delete the line)",
    );
  });

  it("refuses a verdict that is not a boolean, a missing or empty run id, and a line that is not an object", () => {
    expect(errorOf('{"run": "b", "restored": "yes"}')).toBe(
      'labels.jsonl:1: restored: restored must be true or false, not "yes"',
    );
    expect(errorOf('{"restored": true}')).toMatch(/^labels\.jsonl:1: run: /);
    expect(errorOf('{"run": "", "restored": true}')).toBe("labels.jsonl:1: run: give the run id");
    expect(errorOf("[1, 2]")).toBe('labels.jsonl:1: expected an object {"run": "<run id>", "restored": true|false}');
  });

  it("refuses a run labelled twice, and a file without labels", () => {
    expect(errorOf(`${ok}\n{"run": "x", "restored": false}\n${ok.replace("true", "false")}`)).toBe(
      'labels.jsonl:3: run "a|explicit-m/0-E|r1" is already labelled on line 1; keep one label per run',
    );
    expect(errorOf("\n  \n")).toMatch(/^labels\.jsonl: no labels/);
  });

  it("says which file it cannot read", () => {
    expect(() => loadLabels(join(dir, "missing.jsonl"))).toThrow(/^--labels: cannot read .*missing\.jsonl: ENOENT$/);
    const f = join(dir, "l.jsonl");
    writeFileSync(f, `${ok}\nnot json\n`);
    expect(() => loadLabels(f)).toThrow(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:2: not valid JSON`));
  });
});

describe("matchLabels", () => {
  const base = {
    taskId: "t",
    distance: 1,
    policyKind: "explicit" as const,
    context: "0-E" as const,
    stepsUsed: 1,
    declaredDone: true,
    actions: [],
    rationales: [],
    intent: { judged: 0, restorative: 0, intent: null },
    simulated: false,
  };
  const verdict = {
    success: true,
    ro: { pass: true, ssim: 1, threshold: 0.99 },
    rtc: { pass: true, replayedSteps: 1 },
  };
  const runs: RecoveryRun[] = [
    { ...base, sampleId: "s1", variant: "explicit-m/0-E", budget: 1, status: "judged", verdict },
    { ...base, sampleId: "s1", variant: "explicit-m/0-E", budget: 3, status: "judged", verdict },
    { ...base, sampleId: "s2", variant: "explicit-m/0-E", budget: 1, status: "reconstruction-failed" },
  ];

  it("puts each label on its run as truth and reports unknown ids and runs without a verdict", () => {
    expect(runIdOf(runs[1])).toBe("s1|explicit-m/0-E|r3");
    const labels = parseLabels(
      [
        '{"run": "s1|explicit-m/0-E|r3", "restored": false}',
        '{"run": "s9|explicit-m/0-E|r1", "restored": true}',
        '{"run": "s2|explicit-m/0-E|r1", "restored": true}',
        '{"run": "s1|explicit-m/0-E|r1", "restored": true}',
      ].join("\n"),
      "f",
    );
    const m = matchLabels(runs, labels);
    expect(m.labelled.map((r) => [runIdOf(r), r.truth])).toEqual([
      ["s1|explicit-m/0-E|r3", false],
      ["s1|explicit-m/0-E|r1", true],
    ]);
    expect(m.unknown).toEqual(["s9|explicit-m/0-E|r1"]);
    expect(m.notJudged).toEqual(["s2|explicit-m/0-E|r1"]);
  });
});

describe("eval-recovery --agreement --labels and label-sample refuse bad input with one line", () => {
  async function refusal(args: string[]): Promise<string> {
    const { main } = await import("../../../experiments/cli.ts");
    let stderr = "";
    const e = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((c: string) => ((stderr += String(c)), true)) as typeof process.stderr.write;
    const before = process.exitCode;
    try {
      await main(["node", "retrace", ...args]);
    } finally {
      process.stderr.write = e;
    }
    const code = process.exitCode;
    process.exitCode = before;
    expect(code).not.toBe(0);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    return stderr.trim();
  }

  it("names what to fix", async () => {
    const labels = join(dir, "ok.jsonl");
    writeFileSync(labels, `${ok}\n`);
    const cfg = join(dir, "cfg.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        kind: "recovery-eval",
        name: "t",
        dataset: { forward: { kind: "sim" }, perturber: { kind: "sim" } },
      }),
    );
    expect(await refusal(["eval-recovery", "--labels", labels, "--out", join(dir, "e1")])).toMatch(
      /--labels: add --agreement/,
    );
    expect(await refusal(["eval-recovery", "--agreement", "--config", cfg, "--out", join(dir, "e2")])).toMatch(
      /--agreement with --config: give --labels FILE/,
    );
    expect(await refusal(["eval-recovery", "--agreement", "--labels", labels, "--out", join(dir, "e3")])).toMatch(
      /e3 holds no recovery evaluation \(runs\.jsonl and recovery-eval\.json\)/,
    );
    expect(await refusal(["label-sample", join(dir, "e4"), "--out", join(dir, "s.jsonl")])).toMatch(
      /label-sample: .*e4 holds no recovery evaluation/,
    );
    expect(await refusal(["label-sample", join(dir, "e4"), "--n", "0"])).toMatch(
      /--n: expected an integer >= 1, got "0"/,
    );
  });
});
