/**
 * Issue 29 for ideal recovery with a model detector and selector (stand-in): the annotation's detector
 * and selector calls are recorded on the forward run's step they judged, and the viewer shows every
 * call of the run on exactly one step, so no call is unattributed.
 * (Split from report-calls.int.test.ts; the stand-in model run is in report-calls-stand-in.int.test.ts.)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { startStandInServer } from "../../packages/testing/src/stand-in/server.ts";
import type { EpisodeRecord } from "../../experiments/runner/episode.ts";
import { callStepIndex } from "../../experiments/report/viewer-calls.ts";
import { annotationCalls } from "../../experiments/report/run-calls.ts";
import { viewerChunks } from "../../experiments/report/viewer-data.ts";
import { episodeFolder, loadRun } from "../../experiments/report/data.ts";
import { cli } from "./helpers/model-roles.ts";
import { TASKS, linesOf, recordOf, tempRunDir } from "./helpers/report-calls.ts";

const dir = tempRunDir();

describe("ideal recovery with a model detector and selector: no unattributed call (stand-in)", () => {
  it("records the annotation's detector and selector calls on the forward run's step they judged, and the viewer shows every call of the run on exactly one step", async () => {
    const standIn = await startStandInServer({ errorRate: 0.4, seed: 5 });
    try {
      const c = parseYaml(
        readFileSync(new URL("../../experiments/configs/models/ideal-recovery.yaml", import.meta.url), "utf8"),
      ) as Record<string, any>;
      c.env = { kind: "simdesk", tasks: TASKS };
      c.seeds = [0, 1, 2];
      c.k = 1;
      c.strategies = ["error-minus-1", "llm"];
      c.options.maxForwardSteps = 8;
      for (const role of ["forward", "detector"])
        Object.assign(c[role], { observation: "a11y_tree", temperature: 0.7 });
      const cfg = join(dir, "ideal.json");
      writeFileSync(cfg, JSON.stringify(c));
      const out = join(dir, "run-ideal");
      const r = await cli(
        "run",
        cfg,
        "--base-url",
        standIn.url,
        "--model",
        "retrace-stand-in",
        "--out",
        out,
        "--quiet",
        "--workers",
        "1",
      );
      expect(r.code, r.stderr).toBe(0);
      const lines = linesOf(out).filter((l) => l.status === "ok");
      const plan = JSON.parse(readFileSync(join(out, "plan.json"), "utf8")) as {
        instances: { forwardKey: string; task: string; seed: number }[];
      };
      expect(plan.instances.length, "some forward runs failed and were annotated").toBeGreaterThan(0);
      const annotation = annotationCalls(out);
      expect([...annotation.keys()].sort()).toEqual(plan.instances.map((i) => i.forwardKey).sort());
      let annotated = 0,
        selectors = 0;
      for (const i of plan.instances) {
        const forward = lines.find((l) => l.key === i.forwardKey)!;
        const steps = recordOf(out, forward).trajectory.steps;
        const calls = annotation.get(i.forwardKey)!;
        // the detector call that judged the run, and the selector call that followed from it (when E leaves a choice),
        // on the run's last step
        expect(calls[0].phase).toBe("detector");
        expect(
          calls
            .slice(1)
            .map((x) => x.phase)
            .every((p) => p === "selector"),
        ).toBe(true);
        selectors += calls.length - 1;
        for (const x of calls) {
          expect(x.draw).toMatchObject({ task: i.task, seed: i.seed });
          expect(callStepIndex(steps, x)).toBe(steps.length - 1);
          expect(x.messages.length).toBeGreaterThan(0);
          expect(x.reply.length).toBeGreaterThan(0);
        }
        annotated += calls.length;
      }
      expect(selectors, "some annotation called the selector").toBeGreaterThan(0);
      // every call the server answered is in exactly one record: an episode's call log or the annotation's
      const recorded = lines.reduce(
        (n, l) =>
          n +
          ((JSON.parse(readFileSync(join(episodeFolder(out, l), "trajectory.json"), "utf8")) as EpisodeRecord).calls
            ?.length ?? 0),
        0,
      );
      expect(recorded + annotated).toBe(standIn.calls);
      // ... and the viewer shows each of them on exactly one step of its own episode
      const { index, chunks } = await viewerChunks([loadRun(out, out)], join(out, "report-test"));
      let shown = 0;
      for (const row of index) {
        const ep = chunks[row.chunk].find((e) => e.key === row.key)!;
        for (const st of ep.steps) {
          shown += st.calls?.length ?? 0;
          for (const x of st.calls ?? [])
            expect(x.draw, `${row.key} step ${st.n}`).toMatchObject({ task: row.task, seed: row.seed });
        }
      }
      expect(shown).toBe(standIn.calls);
      console.log(
        `ideal run: ${lines.length} episodes, ${plan.instances.length} annotated, ${standIn.calls} calls (${annotated} annotation), all shown on one step each`,
      );
    } finally {
      await standIn.close();
    }
  }, 300_000);
});
