import { describe, expect, it } from "vitest";
import { statesAlong } from "../../experiments/runner/recording-env.ts";

describe("statesAlong", () => {
  const obs = [
    { screenshot: "a", stateId: "S0" },
    { screenshot: "b", stateId: "S1" },
    { screenshot: "a", stateId: "S2" }, // same pixels, different hidden state
    { screenshot: "c", stateId: "S3" },
  ];
  it("matches each step's after-screenshot to the next observation in order, so equal pixels keep their own state", () => {
    expect(statesAlong(["b", "a", "c"], obs)).toEqual({ initial: "S0", states: ["S1", "S2", "S3"] });
  });
  it("lets a step that never touched the environment end in the state it began in", () => {
    expect(statesAlong(["b", "b", "a"], obs)).toEqual({ initial: "S0", states: ["S1", "S1", "S2"] });
  });
  it("gives up (detector labels are used instead) when a step cannot be matched or ids are missing", () => {
    expect(statesAlong(["z"], obs)).toBeUndefined();
    expect(statesAlong(["b"], [{ screenshot: "a" }, { screenshot: "b" }])).toBeUndefined();
  });
});
