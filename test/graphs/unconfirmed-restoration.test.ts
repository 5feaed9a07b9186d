/**
 * `unconfirmedRestoration` in the graph runtime: after a restoration the recovery sub-agent could
 * not confirm (a recoverer that never reaches the target, budget spent: `restored: false`), the
 * paper's "claim-recovered" cuts the history and says "recovered"; retrace's default
 * "disclose-and-keep" keeps the history and tells the truth; "disclose-and-cut" cuts and tells the
 * truth. A confirmed restoration shows the transition string whatever the option says.
 */
import { describe, expect, it } from "vitest";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import {
  RecoveryOptionsSchema,
  type EpisodeComponents,
  type RecoveryOptionsInput,
} from "../../packages/core/src/episode.ts";
import { TOY_TASK, ToyDesk, createToyDetector, createToyPolicy, createToyRecoverer, newBlobs } from "./fixtures/toy.ts";

async function run(skill: number, options: RecoveryOptionsInput, recoveryBudget = 2) {
  const blobs = newBlobs();
  const env = new ToyDesk(blobs);
  const policy = createToyPolicy({ slipTicks: [3] });
  const components: EpisodeComponents = {
    policy,
    env,
    blobs,
    recoverer: createToyRecoverer({ skill }),
    detector: createToyDetector(),
  };
  const result = await runEpisode({
    task: TOY_TASK,
    components,
    options: { freezeWindow: 0, maxRecoveryIterations: 1, recoveryBudget, ...options },
  });
  const truncate = result.trajectory.events.find((e) => e.kind === "truncate")!;
  const end = result.trajectory.events.find((e) => e.kind === "recovery-end")!;
  // The first proposal after the recovery is the one with a notice.
  const after = policy.inputs.find((i) => i.notice)!;
  return { result, truncate, end, after };
}

describe("unconfirmedRestoration in the graph runtime", () => {
  it("defaults to disclose-and-keep outside the experiment configs", () => {
    expect(RecoveryOptionsSchema.parse({}).unconfirmedRestoration).toBe("disclose-and-keep");
  });

  it("claim-recovered (the paper's) cuts the history to R and says the environment has been recovered", async () => {
    const { truncate, end, after } = await run(0, { unconfirmedRestoration: "claim-recovered" });
    expect(end.detail.restored).toBe(false);
    const R = truncate.detail.to as number;
    expect(truncate.detail).toMatchObject({ restored: false, notice: "post-restoration.transition@2" });
    expect(truncate.detail.kept).toBeUndefined();
    expect(R).toBeLessThan(truncate.detail.from as number);
    expect(after.history).toHaveLength(R);
    expect(after.notice).toBe(`Note: the environment has been recovered to the state it had at step ${R}.`);
  });

  it("disclose-and-keep keeps the whole history and says the return to R could not be confirmed", async () => {
    const { truncate, end, after, result } = await run(0, {});
    expect(end.detail.restored).toBe(false);
    expect(truncate.detail).toMatchObject({
      restored: false,
      kept: true,
      notice: "post-restoration.unconfirmed-kept@1",
    });
    expect(truncate.detail.to).toBe(truncate.detail.from);
    expect(after.history).toHaveLength(truncate.detail.from as number);
    expect(after.notice).toMatch(
      /step 3 went off track\. An attempt to return the environment to the state it had at step 2 could not be confirmed, so your history was kept/,
    );
    expect(after.notice).not.toMatch(/has been recovered/);
    expect(result.prompts).toContain("post-restoration.unconfirmed-kept@1");
  });

  it("disclose-and-cut cuts the history to R and says the restoration could not be confirmed", async () => {
    const { truncate, after } = await run(0, { unconfirmedRestoration: "disclose-and-cut" });
    const R = truncate.detail.to as number;
    expect(truncate.detail).toMatchObject({ restored: false, notice: "post-restoration.unconfirmed-cut@1" });
    expect(after.history).toHaveLength(R);
    expect(after.notice).toMatch(new RegExp(`cut back to step ${R} .* could not be confirmed`));
  });

  it("a confirmed restoration cuts and shows the transition string under every setting", async () => {
    for (const unconfirmedRestoration of ["claim-recovered", "disclose-and-keep", "disclose-and-cut"] as const) {
      const { truncate, end, after } = await run(1, { unconfirmedRestoration }, 10);
      expect(end.detail.restored).toBe(true);
      expect(truncate.detail).toMatchObject({ restored: true, notice: "post-restoration.transition@2" });
      expect(after.history).toHaveLength(truncate.detail.to as number);
      expect(after.notice).toMatch(/has been recovered/);
    }
  });

  it("refuses an unknown setting with one line naming the option", () => {
    expect(() => RecoveryOptionsSchema.parse({ unconfirmedRestoration: "pretend" })).toThrow(/unconfirmedRestoration/);
  });
});
