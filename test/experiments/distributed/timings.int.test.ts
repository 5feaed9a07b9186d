/**
 * Issue 31: a distributed run writes the same timings a local one does. Each episode's
 * `timings.jsonl` entry carries `callMs`, the measured latency of each model call of its record's
 * call log, in order, so the viewer shows call latencies for queued runs too. The latencies stay
 * out of the results files: results.jsonl is byte-identical to the local run's. The real LLM
 * detector and selector call the seeded chaos model server (SIMULATED answers, no faults) from a
 * BullMQ worker on real Redis and PostgreSQL.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseExperimentConfig } from "../../../experiments/config/load.ts";
import { runChaos } from "../../../experiments/chaos/run.ts";
import { servicesAvailable } from "../../helpers/services.ts";
import { chaosQueue } from "./chaos-queue.ts";

const services = servicesAvailable("the distributed timings test");
const dir = mkdtempSync(join(tmpdir(), "retrace-dist-timings-"));
const SEED = 3;
const config = parseExperimentConfig({
  kind: "end-to-end",
  name: "dist-timings",
  env: { kind: "simdesk", tasks: ["files-rename-folder", "editor-append-notes"] },
  seeds: { count: 1 },
  baseline: false,
  maxRecoveryIterations: [3],
  options: { maxForwardSteps: 16, freezeWindow: 3, recoveryBudget: 6, recoveryStep: "llm" },
  pairs: [
    { name: "skilled", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" } },
  ],
});

const queue = chaosQueue();
afterAll(async () => {
  await queue.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

type Timing = { key: string; callMs?: unknown[] };
const timingsOf = (out: string): Map<string, Timing> =>
  new Map(
    readFileSync(join(out, "timings.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Timing)
      .map((t) => [t.key, t]),
  );
/** How many model calls each episode's trajectory.json logs, by key. */
function callCounts(out: string): Map<string, number> {
  const files = (readdirSync(out, { recursive: true }) as string[]).filter((f) => f.endsWith("trajectory.json"));
  return new Map(
    files
      .map((f) => JSON.parse(readFileSync(join(out, f), "utf8")) as { key: string; calls?: unknown[] })
      .map((r) => [r.key, r.calls?.length ?? 0]),
  );
}

describe.runIf(services.run)("timings of a distributed run", () => {
  it(
    "a BullMQ worker writes each episode's call latencies (callMs) to timings.jsonl as the local pool does; results.jsonl stays byte-identical",
    { timeout: 300_000 },
    async () => {
      services.assert();
      const localOut = join(dir, "local");
      await runChaos({
        config,
        out: localOut,
        seed: SEED,
        envFaultRate: 0,
        modelFaultRate: 0,
        maxRetries: 0,
        envTimeoutMs: 120_000,
        modelTimeoutMs: 60_000,
        cache: "off",
        workers: 1,
      });
      const localCalls = callCounts(localOut);
      // The config makes model calls (the LLM detector's), so there are latencies to write.
      expect(
        [...localCalls.values()].some((n) => n > 0),
        JSON.stringify([...localCalls]),
      ).toBe(true);
      for (const [key, n] of localCalls) expect(timingsOf(localOut).get(key)?.callMs?.length ?? 0, key).toBe(n);

      const { out } = await queue.run({
        config,
        seed: SEED,
        apiKey: "timings-test-key",
        envFaultRate: 0,
        modelFaultRate: 0,
        dir,
      });

      expect(readFileSync(join(out, "results.jsonl"), "utf8")).toBe(
        readFileSync(join(localOut, "results.jsonl"), "utf8"),
      );
      expect(callCounts(out)).toEqual(localCalls);
      const timings = timingsOf(out);
      for (const [key, n] of localCalls) {
        const callMs = timings.get(key)?.callMs ?? [];
        expect(callMs.length, `${key}: ${JSON.stringify(timings.get(key))}`).toBe(n);
        expect(
          callMs.every((ms) => typeof ms === "number" && ms >= 0),
          JSON.stringify(callMs),
        ).toBe(true);
      }
      // Latencies are measured times: none is in a record.
      for (const f of (readdirSync(out, { recursive: true }) as string[]).filter((f) => f.endsWith("trajectory.json")))
        expect(readFileSync(join(out, f), "utf8")).not.toContain("latencyMs");
    },
  );
});
