/** The distributed bench's two lines follow the shared bench format (figure, unit, target, PASS/MISS). */
import { describe, expect, it } from "vitest";
import { distributedLines } from "../../../experiments/bench/distributed.ts";

describe("distributed bench lines", () => {
  it("report 4-vs-1 scaling against >= 1.7 and the larger queue median against < 20 ms", () => {
    const [scaling, overhead] = distributedLines({ 1: 40, 2: 70, 4: 72 }, 24, { pickup: 13, store: 5.5 }, 2);
    expect(scaling).toMatchObject({ name: "distributed-scaling", value: 1.8, unit: "x", target: ">= 1.7", pass: true });
    expect(scaling.details).toMatchObject({ w1PerMin: 40, w4PerMin: 72, cores: 2 });
    expect(overhead).toMatchObject({ name: "queue-overhead", value: 13, unit: "ms", target: "< 20", pass: true });
    const [slow, late] = distributedLines({ 1: 100, 2: 100, 4: 150 }, 24, { pickup: 3, store: 21 }, 2);
    expect(slow.pass).toBe(false);
    expect(late).toMatchObject({ value: 21, pass: false });
  });
});
