/** Caret and selection digests: present only where the tree carries them, and they move with the caret. */
import { describe, expect, it } from "vitest";
import { axProbeItems } from "../../../packages/evaluation/src/probes/ax-digest.ts";
import type { AxNode } from "../../../packages/core/src/observation.ts";

const app = (caret?: number, selections?: Array<[number, number]>): AxNode => ({
  role: "desktop frame",
  name: "",
  children: [
    {
      role: "application",
      name: "mousepad",
      children: [{ role: "text", name: "", value: "Shopping list", caret, selections }],
    },
  ],
});

describe("axProbeItems caret aspect", () => {
  it("adds ax:<app>:caret only when a node has a caret or a selection, and it differs when either moves", () => {
    expect(Object.keys(axProbeItems(app()))).toEqual([
      "ax:mousepad:tree",
      "ax:mousepad:text",
      "ax:mousepad:states",
      "ax:mousepad:enabled",
    ]);
    const end = axProbeItems(app(13));
    expect(end["ax:mousepad:caret"]).toMatch(/^1 carets 0 with selection [0-9a-f]{16}$/);
    const top = axProbeItems(app(0));
    const selected = axProbeItems(app(13, [[0, 13]]));
    expect(selected["ax:mousepad:caret"]).toMatch(/^1 carets 1 with selection /);
    expect(new Set([end, top, selected].map((i) => i["ax:mousepad:caret"])).size).toBe(3);
    // the other aspects do not see the caret
    expect(top["ax:mousepad:text"]).toBe(end["ax:mousepad:text"]);
    expect(selected["ax:mousepad:tree"]).toBe(end["ax:mousepad:tree"]);
  });
});
