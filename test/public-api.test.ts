/**
 * Pins the public surface: the entries of the package `exports` map, each with exactly these
 * runtime exports. `retrace-cua` (packages/graphs/src/index.ts: the runtime, at most 80 names),
 * `/evaluation` (packages/evaluation/src/index.ts), `/models`, `/simdesk`, `/langchain`
 * (adapters/entry-*.ts), `/adapters` (packages/environments/src/index.ts: real environments), `/testing`
 * (packages/testing/src/index.ts), `/experiments` (experiments/index.ts) and the SDK entries. A change here is a change
 * users see: update a list deliberately, and say
 * so in the commit. The entries are imported by the package name, so the exports map is tested too.
 */
import { describe, expect, it } from "vitest";
import * as retrace from "retrace-cua";
import * as evaluation from "retrace-cua/evaluation";
import * as models from "retrace-cua/models";
import * as simdesk from "retrace-cua/simdesk";
import * as langchain from "retrace-cua/langchain";
import * as adapters from "retrace-cua/adapters";
import * as testing from "retrace-cua/testing";
import * as experiments from "retrace-cua/experiments";
import * as openaiAgents from "retrace-cua/openai-agents";
import * as aiSdk from "retrace-cua/ai-sdk";
import * as stagehand from "retrace-cua/stagehand";
import {
  ADAPTERS,
  AI_SDK,
  EVALUATION,
  EXPERIMENTS,
  LANGCHAIN,
  MODELS,
  OPENAI_AGENTS,
  RETRACE,
  SIMDESK,
  STAGEHAND,
  TESTING,
} from "./helpers/public-api-names.ts";

describe("the public surface", () => {
  it("exports exactly the pinned names from retrace (the runtime)", () => {
    expect(Object.keys(retrace).sort()).toEqual([...RETRACE].sort());
  });

  it("keeps the main entry small: at most 80 names (runtime, options, events, errors, checkpointers)", () => {
    expect(Object.keys(retrace).length).toBeLessThanOrEqual(80);
  });

  it("exports exactly the pinned names from retrace-cua/evaluation, /models, /simdesk, /langchain and /adapters", () => {
    expect(Object.keys(evaluation).sort()).toEqual([...EVALUATION].sort());
    expect(Object.keys(models).sort()).toEqual([...MODELS].sort());
    expect(Object.keys(simdesk).sort()).toEqual([...SIMDESK].sort());
    expect(Object.keys(langchain).sort()).toEqual([...LANGCHAIN].sort());
    expect(Object.keys(adapters).sort()).toEqual([...ADAPTERS].sort());
  });

  it("exports the scripted OpenAI-compatible server and the stand-in model from retrace/testing", () => {
    expect(Object.keys(testing).sort()).toEqual([...TESTING].sort());
  });

  it("exports exactly the pinned names from retrace/experiments", () => {
    expect(Object.keys(experiments).sort()).toEqual([...EXPERIMENTS].sort());
  });

  it("exports the drop-in SDK wrappers from retrace/openai-agents, retrace/ai-sdk and retrace/stagehand", () => {
    expect(Object.keys(openaiAgents).sort()).toEqual([...OPENAI_AGENTS].sort());
    expect(Object.keys(aiSdk).sort()).toEqual([...AI_SDK].sort());
    expect(Object.keys(stagehand).sort()).toEqual([...STAGEHAND].sort());
  });

  it("offers the entry points a user wraps an agent with", () => {
    expect(typeof retrace.withRecovery).toBe("function");
    expect(typeof retrace.runEpisode).toBe("function");
    expect(typeof retrace.createRecoveryGraph).toBe("function");
    expect(retrace.RecoveryOptionsSchema.parse({})).toMatchObject({
      freezeWindow: 5,
      recoveryBudget: 10,
      maxForwardSteps: 50,
    });
  });

  it("gives each exported name one home: no entry repeats another's", () => {
    const seen = [
      RETRACE,
      EVALUATION,
      MODELS,
      SIMDESK,
      LANGCHAIN,
      ADAPTERS,
      TESTING,
      EXPERIMENTS,
      OPENAI_AGENTS,
      AI_SDK,
      STAGEHAND,
    ].flat();
    expect(new Set(seen).size).toBe(seen.length);
  });
});
