import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { parseTuneConfig } from "../../../experiments/tune/config.ts";

const base = (extra: Record<string, unknown> = {}) => ({
  kind: "tune",
  name: "obj",
  env: { kind: "simdesk", sample: 2 },
  pair: {
    name: "p",
    forward: { kind: "sim", profile: "sloppy" },
    recovery: { kind: "sim", profile: "skilled" },
    detector: { kind: "sim", profile: "decent" },
  },
  space: { "options.freezeWindow": [0, 10] },
  ...extra,
});

describe("tune objectives", () => {
  it("defaults to success with no cost cap, and maps a cap to the objective's cost unit", () => {
    expect(parseTuneConfig(base()).objective).toBe("success");
    expect(parseTuneConfig(base()).costLimit).toBeUndefined();
    const t = parseTuneConfig(base({ objective: { kind: "success", maxTokensPerEpisode: 4000 } }));
    expect(t.costLimit).toEqual({ tokens: 4000 });
    const u = parseTuneConfig(base({ objective: { kind: "success-per-usd", maxUsdPerEpisode: 0.2 } }));
    expect(u.objective).toBe("success-per-usd");
    expect(u.costLimit).toEqual({ usd: 0.2 });
  });

  it("rejects a bad objective in one line naming the field", () => {
    const bad = [
      [{ objective: { kind: "speed" } }, /objective\.kind/],
      [{ objective: { kind: "success", maxTokensPerEpisode: 10, maxUsdPerEpisode: 1 } }, /give one cost cap/],
      [{ objective: { kind: "success-per-usd", maxTokensPerEpisode: 10 } }, /maxUsdPerEpisode, not a token cap/],
      [{ objective: { kind: "success-per-1k-tokens", maxUsdPerEpisode: 1 } }, /maxTokensPerEpisode, not a USD cap/],
      [{ objective: { kind: "success", maxTokensPerEpisode: -1 } }, /maxTokensPerEpisode/],
      [{ objective: { kind: "success", maxTokensPerEpisode: 10 }, costLimit: { tokens: 5 } }, /give one cost cap/],
    ] as const;
    for (const [extra, msg] of bad) {
      let err: unknown;
      try {
        parseTuneConfig(base(extra));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(msg);
      expect((err as Error).message.split("\n")).toHaveLength(1);
    }
  });
});
