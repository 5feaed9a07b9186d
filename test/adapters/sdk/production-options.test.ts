/**
 * Production SDK users (issue 41): plain-value options are checked with one line
 * (`telemetry: true`, `displayWidthPx: "1280"`, a `baseURL` without a scheme), sessions are refused
 * by createAgentsRecovery as the docs say, and a `logger` option receives retrace's records
 * instead of stderr (StepRecovery, the loop every SDK integration and the LangChain middleware
 * drive, and withRecovery).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createRecovery, retraceComputerTool } from "../../../packages/ai-sdk/src/index.ts";
import { createAgentsRecovery, retraceComputer } from "../../../packages/openai-agents/src/index.ts";
import { stagehandConfigProblem } from "../../../packages/stagehand/src/config.ts";
import { resolveSdkOptions } from "../../../packages/sdk-shared/src/options.ts";
import { recoveryMiddleware } from "../../../packages/langchain/src/recovery-middleware.ts";
import { withRecovery } from "../../../packages/graphs/src/with-recovery.ts";
import { postRestoration } from "../../../packages/core/src/prompts/index.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { StepRecovery } from "../../../packages/core/src/runtime/step-recovery.ts";
import { TOY_TASK, ToyDesk, createToyPolicy, createToyRecoverer, newBlobs } from "../../graphs/fixtures/toy.ts";

const blobs = newBlobs();
const env = new ToyDesk(blobs);
const base = {
  env,
  blobs,
  detector: { name: "d", detect: async () => ({ isError: false, errorStep: null, reason: "", confidence: 1 }) },
  restore: async () => ({ restored: false }),
};

const refused = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("accepted");
};

describe("plain-value options of the SDK integrations", () => {
  it("telemetry: true is refused with one line; an object with a tracer is accepted", () => {
    expect(refused(() => createRecovery({ ...base, telemetry: true as never }))).toBe(
      `createRecovery: option "telemetry" must be an object like the AI SDK's experimental_telemetry ({ isEnabled: true, tracer }), not a boolean (got true)`,
    );
    expect(refused(() => createRecovery({ ...base, telemetry: { tracer: {} as never } }))).toMatch(
      /^createRecovery: option "telemetry" tracer must be an OpenTelemetry Tracer \(with startSpan\)/,
    );
    expect(() =>
      createRecovery({
        ...base,
        telemetry: { isEnabled: true, tracer: { startSpan: () => ({ end: () => undefined }) } as never },
      }),
    ).not.toThrow();
  });

  it('displayWidthPx: "1280" and dimensions ["1280", 720] are refused; numbers are accepted', () => {
    expect(refused(() => retraceComputerTool({ env, blobs, displayWidthPx: "1280" as never }))).toBe(
      'retraceComputerTool: option "displayWidthPx" must be a number of pixels (an integer from 1 to 16384) (got "1280")',
    );
    expect(refused(() => retraceComputerTool({ env, blobs, displayHeightPx: 0 }))).toMatch(
      /^retraceComputerTool: option "displayHeightPx" must be a number of pixels/,
    );
    expect(refused(() => retraceComputer({ env, blobs, dimensions: ["1280", 720] as never }))).toMatch(
      /^RetraceComputer: option "dimensions" must be a number of pixels/,
    );
    expect(() => retraceComputerTool({ env, blobs, displayWidthPx: 1024, displayHeightPx: 768 })).not.toThrow();
  });

  it("a baseURL without a scheme is refused naming the field", () => {
    expect(
      stagehandConfigProblem({ model: { modelName: "openai/gpt-4.1", baseURL: "api.openai.com/v1" }, mode: "hybrid" }),
    ).toBe(
      'model.baseURL must be an http:// or https:// URL with a host, e.g. https://api.openai.com/v1 (got "api.openai.com/v1")',
    );
    expect(
      stagehandConfigProblem({
        model: { modelName: "openai/gpt-4.1", baseURL: "https://api.openai.com/v1" },
        mode: "hybrid",
      }),
    ).toBeUndefined();
  });

  it("createAgentsRecovery refuses a session, as docs/openai-agents.md says", () => {
    expect(refused(() => createAgentsRecovery({ ...base, session: {} } as never))).toMatch(
      /^createAgentsRecovery: option "session" is not supported: a session keeps the steps recovery cuts/,
    );
  });

  it("a logger without warn/error is refused with one line", () => {
    expect(
      refused(() => resolveSdkOptions("createRecovery", { ...base, logger: { info: () => undefined } as never })),
    ).toMatch(/^createRecovery: .*logger.*must be a pino-compatible logger \{ debug, info, warn, error \}/);
    expect(refused(() => withRecovery(createToyPolicy(), { logger: console.log as never }))).toMatch(
      /^withRecovery: option "logger" must be a pino-compatible logger/,
    );
  });
});

describe("the logger option", () => {
  const records: Array<{ level: string; obj: Record<string, unknown>; msg?: string }> = [];
  const userLogger = Object.fromEntries(
    ["debug", "info", "warn", "error"].map((level) => [
      level,
      (obj: Record<string, unknown>, msg?: string) => void records.push({ level, obj, msg }),
    ]),
  ) as never;
  let stderr = "";
  const spy = () =>
    vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => ((stderr += String(c)), true));
  afterEach(() => {
    records.length = 0;
    stderr = "";
    vi.restoreAllMocks();
  });

  it("the SDK loop (StepRecovery): a detector failure's warning goes to the user's logger, not stderr", async () => {
    const o = resolveSdkOptions("createRecovery", {
      ...base,
      detector: { name: "broken", detect: async () => null as never },
      logger: userLogger,
      freezeWindow: 0,
    });
    const loop = new StepRecovery({ ...o, postRestoration }, { id: "t", instruction: "x" });
    const obs = await env.reset(TOY_TASK as never);
    loop.start(obs);
    spy();
    await loop.afterSteps([{ actions: [{ type: "WAIT" } as never] }], obs);
    await loop.afterSteps([{ actions: [{ type: "WAIT" } as never] }], obs);
    vi.restoreAllMocks();
    expect(stderr).toBe("");
    const warn = records.find((r) => r.level === "warn");
    expect(warn?.msg).toBe("detector failed; continuing without recovery");
    expect(warn?.obj.failure).toMatch(/^detector\.detect\(\) \(broken\) returned null: return /);
    // Without the option the same warning is a JSON line on stderr.
    const plain = new StepRecovery(
      {
        ...resolveSdkOptions("createRecovery", {
          ...base,
          detector: { name: "broken", detect: async () => null as never },
          freezeWindow: 0,
        }),
        postRestoration,
      },
      { id: "t", instruction: "x" },
    );
    plain.start(obs);
    spy();
    await plain.afterSteps([{ actions: [{ type: "WAIT" } as never] }], obs);
    await plain.afterSteps([{ actions: [{ type: "WAIT" } as never] }], obs);
    vi.restoreAllMocks();
    expect(stderr).toContain('"msg":"detector failed; continuing without recovery"');
  });

  it("withRecovery: the run's records go to the user's logger", async () => {
    const b = newBlobs();
    const agent = withRecovery(createToyPolicy({ slipTicks: [2] }), {
      detector: { name: "broken", detect: async () => "yes" as never },
      recoverer: createToyRecoverer(),
      logger: userLogger,
      freezeWindow: 0,
    });
    spy();
    await agent.run({ task: TOY_TASK, env: new ToyDesk(b), blobs: b });
    vi.restoreAllMocks();
    expect(stderr).not.toContain("detector failed");
    expect(records.some((r) => r.level === "warn" && r.msg === "detector failed; continuing without recovery")).toBe(
      true,
    );
  });

  it("the LangChain middleware takes the option", () => {
    expect(() =>
      recoveryMiddleware({
        detector: base.detector,
        observe: async () => ({ screenshot: "x", width: 1, height: 1 }),
        restore: base.restore,
        blobs,
        logger: userLogger,
      }),
    ).not.toThrow();
  });
});
