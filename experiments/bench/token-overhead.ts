/**
 * `recovery-token-overhead`: what recovery costs in tokens, on the stand-in end-to-end preset
 * (experiments/configs/stand-in/end-to-end.yaml, every role played by the SIMULATED stand-in at
 * its README settings: --error-rate 0.2, --post-cut-error-rate 0.3). Tokens per episode of the
 * recovery-wrapped agent (max recovery iterations 3) over the bare agent (no recovery), as the stand-in reports
 * them (o200k_base text, OpenAI's image tile rule), beside the success gain of the same run. Narrowed
 * to seeds 0-1 and one cap so it runs in a few minutes; no target (it is a measurement).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { startStandInServer } from "../../adapters/testing/stand-in/server.ts";
import type { ExperimentSummary } from "../runner/summary.ts";
import type { BenchResult } from "./result.ts";
import { RunFailedError } from "../../src/errors.ts";

const PRESET = fileURLToPath(new URL("../configs/stand-in/end-to-end.yaml", import.meta.url));
const CLI = fileURLToPath(new URL("../bin/retrace.mjs", import.meta.url));

export async function run(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), "retrace-bench-tokens-"));
  const server = await startStandInServer({ errorRate: 0.2, postCutErrorRate: 0.3, seed: 0 });
  try {
    const c = parseYaml(readFileSync(PRESET, "utf8")) as Record<string, any>;
    c.seeds = [0, 1];
    c.maxRecoveryIterations = [3];
    const cfg = join(dir, "end-to-end.json");
    writeFileSync(cfg, JSON.stringify(c));
    const out = join(dir, "run");
    const code = await new Promise<number>((done, fail) => {
      const child = spawn(process.execPath, [CLI, "run", cfg, "--base-url", server.url, "--out", out, "--quiet", "--workers", "2"], { stdio: ["ignore", "ignore", "inherit"] });
      const stop = () => child.kill("SIGTERM");
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
      child.on("error", fail);
      child.on("exit", (n) => {
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
        done(n ?? 1);
      });
    });
    if (code !== 0) throw new RunFailedError(`recovery-token-overhead: retrace run exited with ${code}`);
    const s = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as ExperimentSummary;
    const bare = s.conditions.find((x) => x.condition.endsWith("no-recovery"))!;
    const wrapped = s.conditions.find((x) => x.condition.endsWith("max-rec-3"))!;
    const per = (x: typeof bare) => x.tokens?.total.perEpisode ?? 0;
    const ratio = per(wrapped) / per(bare);
    const role = (x: typeof bare, r: string) => x.tokens?.roles[r as keyof NonNullable<typeof x.tokens>["roles"]]?.perEpisode ?? 0;
    return [
      {
        name: "recovery-token-overhead",
        ratioOf: "tokens/episode of the recovery-wrapped agent (cap 3) / the bare agent, stand-in end-to-end preset (SIMULATED)",
        ratio,
        details: {
          episodes: bare.success.n + wrapped.success.n,
          bareTokens: Math.round(per(bare)),
          wrappedTokens: Math.round(per(wrapped)),
          bareSuccess: `${(100 * bare.success.rate).toFixed(0)}%`,
          wrappedSuccess: `${(100 * wrapped.success.rate).toFixed(0)}%`,
          successGainPts: Number((100 * (wrapped.success.rate - bare.success.rate)).toFixed(1)),
          policy: Math.round(role(wrapped, "policy")),
          detector: Math.round(role(wrapped, "detector")),
          selector: Math.round(role(wrapped, "selector")),
          recoverer: Math.round(role(wrapped, "recoverer")),
          summarizer: Math.round(role(wrapped, "summarizer")),
          simulated: String(s.simulated),
        },
      },
    ];
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
