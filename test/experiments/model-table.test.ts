/**
 * The console's per-role model table (`retrace run`, issue 37): a role whose model spec has no
 * price shows cost "n/a", never "$0.0000" (the meter adds nothing for an unpriced call); a priced
 * role shows its dollars.
 */
import { describe, expect, it } from "vitest";
import { modelTableText } from "../../experiments/commands/run.ts";
import { usdText } from "../../packages/core/src/usage.ts";

describe("the model table's cost column", () => {
  it("says n/a where no price was set and dollars where one was", () => {
    const text = modelTableText({
      policy: { calls: 3, errors: 0, inputTokens: 300, outputTokens: 30, costUsd: 0 },
      detector: { calls: 2, errors: 0, inputTokens: 200, outputTokens: 20, costUsd: 0.0123 },
    } as never);
    const row = (role: string) =>
      text
        .split("\n")
        .find((l) => l.startsWith(role))!
        .trim()
        .split(/\s+/);
    expect(row("policy").at(-1)).toBe("n/a");
    expect(row("detector").at(-1)).toBe("$0.0123");
    expect(text).not.toContain("$0.0000");
    expect([usdText(0), usdText(undefined), usdText(null), usdText(0.5)]).toEqual(["n/a", "n/a", "n/a", "$0.5000"]);
  });
});

describe("the progress line's spending", () => {
  it("shows only when some model-backed agent has a price", async () => {
    const { anyPriced } = await import("../../experiments/agents/cost-cap.ts");
    const m = (prices?: Record<string, { inputPerMillion: number; outputPerMillion: number }>) =>
      ({ path: "config.forward", spec: { kind: "model", model: "gpt-x", ...(prices && { prices }) } }) as never;
    expect(anyPriced([m()])).toBe(false);
    expect(anyPriced([{ path: "config.forward", spec: { kind: "sim" } } as never])).toBe(false);
    expect(anyPriced([m(), m({ "gpt-*": { inputPerMillion: 1, outputPerMillion: 2 } })])).toBe(true);
  });
});
