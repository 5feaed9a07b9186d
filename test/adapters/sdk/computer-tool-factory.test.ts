/**
 * `ai` is @retrace-cua/ai-sdk's one peer: retraceComputerTool takes the provider's computer-tool
 * factory (`computerTool`), and loads `@ai-sdk/anthropic` only when none is given.
 */
import { anthropic } from "@ai-sdk/anthropic";
import { describe, expect, it } from "vitest";
import { retraceComputerTool, type ComputerToolFactory } from "../../../packages/ai-sdk/src/computer-tool.ts";
import { ToyDesk, newBlobs } from "../../graphs/fixtures/toy.ts";

const blobs = newBlobs();
const env = new ToyDesk(blobs);

describe("retraceComputerTool's computer-tool factory", () => {
  it("takes @ai-sdk/anthropic's own factory as it is (typed), and builds the same provider tool as the default", () => {
    const given = retraceComputerTool({ env, blobs, computerTool: anthropic.tools.computer_20250124 });
    const byDefault = retraceComputerTool({ env, blobs });
    expect(given.type).toBe("provider");
    expect((given as { id?: string }).id).toBe("anthropic.computer_20250124");
    expect((byDefault as { id?: string }).id).toBe((given as { id?: string }).id);
    expect((given as { args?: unknown }).args).toEqual({ displayWidthPx: 1280, displayHeightPx: 720 });
    expect(given.log).toEqual([]);
  });

  it("calls a given factory with the display size and an execute that steps the environment and logs the call", async () => {
    const seen: Array<Parameters<ComputerToolFactory>[0]> = [];
    const tool = retraceComputerTool({
      env,
      blobs,
      displayWidthPx: 1024,
      displayHeightPx: 768,
      computerTool: (o) => {
        seen.push(o);
        return { type: "function", inputSchema: {} as never, execute: o.execute } as never;
      },
    });
    expect(seen).toHaveLength(1);
    expect([seen[0].displayWidthPx, seen[0].displayHeightPx]).toEqual([1024, 768]);
    const out = await seen[0].execute({ action: "screenshot" });
    expect(typeof out.screenshot).toBe("string");
    expect(tool.log).toHaveLength(1);
    expect(tool.log[0].actions).toEqual([]);
  });
});
