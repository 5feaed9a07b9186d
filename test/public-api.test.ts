/**
 * Pins the public surface: the entries of the package `exports` map, each with exactly these
 * runtime exports. `retrace-cua` (packages/graphs/src/index.ts: the runtime, at most 80 names),
 * `/evaluation` (packages/evaluation/src/index.ts), `/models`, `/simdesk`, `/langchain`
 * (adapters/entry-*.ts), `/adapters` (packages/environments/src/index.ts: real environments), `/testing`
 * (packages/testing/src/index.ts), `/experiments` (experiments/index.ts) and the SDK entries. A change here is a change
 * users see: update a list deliberately, and say
 * so in the commit. The entries are imported by the package name, so the exports map is tested too.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
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

const RETRACE = [
  "ALL_PROMPTS",
  "ActionSchema",
  "AdapterError",
  "BlobStore",
  "CACHE_PRICING",
  "CascadeGateSpecSchema",
  "ConfigError",
  "DEFAULT_CASCADE_GATES",
  "DataError",
  "DetectorUnavailableError",
  "EPISODE_EVENT_NAMES",
  "EnvironmentError",
  "EpisodeEvents",
  "InternalError",
  "MODEL_ROLES",
  "MOUSE_BUTTONS",
  "ModelBehaviorError",
  "RECOVERY_CONTEXTS",
  "RECOVERY_STEP_STRATEGIES",
  "RESTORATION_MODES",
  "RecoveryOptionsSchema",
  "ReplayDesyncError",
  "RetraceError",
  "RunFailedError",
  "STEP_ROLES",
  "ServiceUnavailableError",
  "StepTimeoutError",
  "TRANSITION_PROMPT",
  "addUsage",
  "billedTokens",
  "consumeFrozenStep",
  "createCascadeDetector",
  "createErrorMinusOneSelector",
  "createErrorRandomSelector",
  "createLoopDetector",
  "createMemoryCheckpointer",
  "createRecoveryGraph",
  "createRecoverySubgraph",
  "createRng",
  "createSqliteCheckpointer",
  "createStagnationDetector",
  "createStepSelector",
  "createZeroSelector",
  "definePrompt",
  "describeError",
  "detectorGate",
  "emptyAccounting",
  "errorRandomStep",
  "formatAction",
  "guardedDetect",
  "guardedSelect",
  "hashValue",
  "initialFreezeState",
  "isTerminal",
  "noDetection",
  "parseCascadeGates",
  "promptRef",
  "recoveryContextHistory",
  "recursionLimitFor",
  "renderPrompt",
  "resolveRecoveryOptions",
  "runEpisode",
  "sha256Hex",
  "stableStringify",
  "startFreeze",
  "tokenSplit",
  "tokenSplits",
  "trajLine",
  "transitionNotice",
  "truncateHistory",
  "withRecovery",
  "withoutTiming",
  "writeEpisodeOutput",
];

const EVALUATION = [
  "DEFAULT_LOCAL_BLOCK",
  "DEFAULT_LOCAL_FLOOR",
  "DEFAULT_PROBE_IGNORE",
  "DEFAULT_SSIM_THRESHOLD",
  "ProbeVerifierSpecSchema",
  "RECOVERY_DATASET_SCHEMA",
  "Z95",
  "buildRecoveryDataset",
  "checkTransitionConsistency",
  "compareProbeReports",
  "createProbeVerifier",
  "createStateCheck",
  "detectorLabels",
  "detectorStability",
  "dilateMask",
  "episodeIntent",
  "evaluateRecovery",
  "executeStep",
  "executeSteps",
  "groundTruthStability",
  "judgeRecovery",
  "keywordIntent",
  "learnDynamicMask",
  "loadMask",
  "loadProbeReport",
  "loadRecoveryDataset",
  "makeProbeReport",
  "maskFraction",
  "maskedObservationOracle",
  "maskedScreenshotSsim",
  "observationOracle",
  "observationSsim",
  "oracleAgreement",
  "passAtK",
  "perturb",
  "probeVerifierFromSpec",
  "proportionOf",
  "recommend",
  "recoveryReference",
  "recoveryTable",
  "replayFromReset",
  "resolveBuildSettings",
  "retention",
  "rolloutPolicy",
  "saveMask",
  "saveRecoveryDataset",
  "scoreRationales",
  "screenshotSsim",
  "screenshotsMatch",
  "stabilityOf",
  "storeProbeReport",
  "successAtK",
  "successAtKCurve",
  "summarizeStability",
  "transitionOracle",
  "twoProportionPValue",
  "unionMasks",
  "wilsonInterval",
  "withProbes",
];

const MODELS = [
  "ACTION_FORMATS",
  "ActionFormatError",
  "CACHE_MODES",
  "DETECTION_PRESETS",
  "DetectorReplySchema",
  "PRODUCTION_DETECTION",
  "PRODUCTION_GATES",
  "PRODUCTION_RECOVERY",
  "RESTORED_TOKEN",
  "SelectorReplySchema",
  "anthropicComputerInputToActions",
  "cachePricingFor",
  "costUsd",
  "createAgenticLlmVerifier",
  "createDetectionPreset",
  "createAnthropicPolicy",
  "createChatPolicy",
  "createFormatPolicy",
  "createLlmErrorDetector",
  "createLlmPerturbationPolicy",
  "createLlmRecoveryJudge",
  "createLlmRecoveryPolicy",
  "createLlmStateVerifier",
  "createLlmStepSelector",
  "createLlmSummarizer",
  "createOpenAIChatModel",
  "createOpenAICuaPolicy",
  "createOpenAIEmbeddings",
  "createPyautoguiPolicy",
  "createRecordReplay",
  "createUiTarsPolicy",
  "extractCodeBlocks",
  "openAIComputerActionToActions",
  "parseCacheMode",
  "parsePyautogui",
  "priceFor",
  "pyautoguiResponseToActions",
  "redactSecrets",
  "uiTarsToActions",
  "withCache",
  "xdotoolKeysToActions",
];

const SIMDESK = [
  "DEFAULT_SLIP_MIX",
  "SIMDESK_TASKS",
  "SIM_PROFILES",
  "SIM_RECOVERER_FLAILING",
  "SIM_RECOVERER_SKILLED",
  "SIM_RECOVERER_WEAK",
  "SimDesk",
  "correctRecoveryStep",
  "createSimAgents",
  "createSimDesk",
  "createSimDetector",
  "createSimForwardPolicy",
  "createSimPerturbationPolicy",
  "createSimRecoveryPolicy",
  "createSimStepSelector",
  "describeSimulated",
  "getSimDeskTask",
  "trajectoryTruth",
];

const LANGCHAIN = [
  "RECOVERY_EVENT",
  "createLangChainChatModel",
  "createLangChainPolicy",
  "recoverWithPolicy",
  "recoveryMiddleware",
];

const ADAPTERS = [
  "BROWSER_TASKS",
  "BrowserEnvironment",
  "DESKTOP_TASKS",
  "DesktopEnvironment",
  "ENVIRONMENT_KINDS",
  "MANAGED_LABEL",
  "OsworldClient",
  "OsworldEnvironment",
  "OsworldPythonBridge",
  "RUN_LABEL",
  "actionToPyautogui",
  "allocateOsworldPorts",
  "createBrowserEnvironment",
  "createDockerClient",
  "createDockerDesktop",
  "createEnvironmentFactory",
  "createPlanDivergenceDetector",
  "createX11Desktop",
  "desktopTask",
  "detectKvm",
  "evaluateOsworldNative",
  "isEnvironmentKind",
  "loadBrowserTaskFile",
  "loadOsworldTasks",
  "osworldContainerSpec",
  "osworldResultDir",
  "parseOsworldTask",
  "releaseOsworldPorts",
  "removeManagedContainers",
  "runOsworldSetup",
  "startAppServer",
  "startOsworldControlServer",
  "startOsworldVm",
  "tasksForEnvironment",
  "writeOsworldResult",
];

const TESTING = ["STAND_IN_MODEL", "startScriptedOpenAIServer", "startStandInServer"];

const EXPERIMENTS = [
  "AGENT_ROLES",
  "ExperimentConfigSchema",
  "SIMULATED_NOTE",
  "agentKinds",
  "buildSimDeskDataset",
  "createAgent",
  "createOsworldRuntime",
  "createSimDeskRuntime",
  "loadExperimentConfig",
  "parseExperimentConfig",
  "registerAgentKind",
  "runExperiment",
  "runOracleAgreement",
  "runRecoveryEvalSuite",
  "runSimDeskRecoveryEval",
  "summarize",
  "summaryCsv",
  "validateAgentSpec",
  "withBrowserEnv",
  "withDesktopEnv",
];

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VENDOR_SDKS = [
  "openai",
  "@anthropic-ai/sdk",
  "dockerode",
  "bullmq",
  "ioredis",
  "pg",
  "playwright-core",
  "@openai/agents",
  "ai",
  "@ai-sdk/anthropic",
  "@browserbasehq/stagehand",
];
/**
 * Optional peers that are not vendor SDKs but must not load with an entry either (package.json peerDependenciesMeta).
 */
const OPTIONAL_PEERS = [
  "sharp",
  "langchain",
  "better-sqlite3",
  "@langchain/langgraph-checkpoint-sqlite",
  "@langchain/langgraph-checkpoint-postgres",
  "chart.js",
  "cli-progress",
  "pino",
]; // (tsx: the probe itself runs under it)

/**
 * The npm packages a fresh Node process loads when it imports `entry` by the package name: every
 * URL the ESM resolver hands out (a resolve hook appends it to a file) plus CommonJS' require cache.
 */
async function packagesLoadedBy(entry: string): Promise<string[]> {
  const script = `
    import { register, createRequire } from "node:module";
    import { mkdtempSync, readFileSync, rmSync } from "node:fs";
    import { join } from "node:path";
    import { tmpdir } from "node:os";
    const dir = mkdtempSync(join(tmpdir(), "retrace-graph-"));
    const log = join(dir, "urls");
    const hook = 'import { appendFileSync } from "node:fs"; export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(' + JSON.stringify(log) + ', r.url + String.fromCharCode(10)); return r; }';
    register("data:text/javascript," + encodeURIComponent(hook));
    await import(process.argv[1]);
    const urls = [...readFileSync(log, "utf8").split(String.fromCharCode(10)), ...Object.keys(createRequire(import.meta.url).cache)];
    rmSync(dir, { recursive: true, force: true });
    const names = new Set(urls.map((u) => (u.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//) ?? [])[1]).filter(Boolean));
    process.stdout.write(JSON.stringify([...names].sort()));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--conditions=retrace-dev", "--import", "tsx", "--input-type=module", "-e", script, entry],
    { cwd: ROOT, timeout: 120_000 },
  );
  return JSON.parse(stdout) as string[];
}

/** The SDK entries: each its own, so that a user of one SDK never loads the other. */
const OPENAI_AGENTS = [
  "AgentsRecovery",
  "RECOVERY_SPAN_NAME",
  "RetraceComputer",
  "agentForwardPolicy",
  "createAgentsRecovery",
  "retraceComputer",
  "runWithRecovery",
];
const AI_SDK = [
  "AiSdkRecovery",
  "RECOVERY_SPAN",
  "aiSdkForwardPolicy",
  "createRecovery",
  "generateTextWithRecovery",
  "recoverySpanAttributes",
  "retraceComputerTool",
];
const STAGEHAND = [
  "STAGEHAND_READ_ONLY_TOOLS",
  "executeWithRecovery",
  "stagehandForwardPolicy",
  "stagehandToolCallToActions",
];

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

  it("loads no vendor SDK and no optional peer when a script imports retrace, /evaluation, /models, /simdesk, /adapters, /testing or /experiments, no LangGraph with the light entries, and each SDK entry its own SDK only", async () => {
    const name = (JSON.parse(readFileSync(join(ROOT, "packages/retrace-cua/package.json"), "utf8")) as { name: string })
      .name;
    const light = [name, ...["evaluation", "models", "simdesk", "adapters"].map((e) => `${name}/${e}`)];
    const entries = [
      ...light,
      ...["testing", "experiments", "langchain", "openai-agents", "ai-sdk"].map((e) => `${name}/${e}`),
    ];
    const loaded = new Map<string, string[]>();
    for (const e of entries) loaded.set(e, await packagesLoadedBy(e));
    for (const e of [...light, `${name}/testing`, `${name}/experiments`])
      expect(
        loaded.get(e)!.filter((p) => VENDOR_SDKS.includes(p) || OPTIONAL_PEERS.includes(p)),
        e,
      ).toEqual([]);
    // The main entry loads LangGraph and LangChain's core on first use (runEpisode, withRecovery(...).run,
    // createRecoveryGraph, a checkpointer's first call), not at import; the probe sees zod, which it does load.
    expect(loaded.get(name)).toContain("zod");
    // The light entries (what the README's snippets import) load no LangChain, LangGraph or langsmith at all.
    for (const e of light)
      expect(
        loaded.get(e)!.filter((p) => p.startsWith("@langchain/") || p === "langsmith"),
        e,
      ).toEqual([]);
    // The same probe on retrace-cua/langchain (the middleware) finds LangGraph, so the empty lists above are not a
    // blind probe.
    expect(loaded.get(`${name}/langchain`)).toContain("@langchain/langgraph");
    // The same probe on an SDK entry finds that SDK (so the empty lists above are not a blind probe), and no other.
    expect(loaded.get(`${name}/openai-agents`)).toEqual(expect.arrayContaining(["@openai/agents", "openai"]));
    expect(
      loaded
        .get(`${name}/openai-agents`)!
        .filter((p) =>
          ["ai", "@ai-sdk/anthropic", "@browserbasehq/stagehand", "sharp", "playwright-core", "dockerode"].includes(p),
        ),
    ).toEqual([]);
    // ai is the AI SDK entry's one SDK: @ai-sdk/anthropic loads only when retraceComputerTool builds
    // Anthropic's tool without a computerTool factory.
    expect(loaded.get(`${name}/ai-sdk`)).toContain("ai");
    expect(
      loaded
        .get(`${name}/ai-sdk`)!
        .filter((p) =>
          [
            "@ai-sdk/anthropic",
            "openai",
            "@openai/agents",
            "@browserbasehq/stagehand",
            "sharp",
            "playwright-core",
            "dockerode",
          ].includes(p),
        ),
    ).toEqual([]);
    // Neither SDK entry loads LangGraph: their wrappers plug into the SDK's own loop.
    for (const e of ["openai-agents", "ai-sdk"])
      expect(
        loaded.get(`${name}/${e}`)!.filter((p) => p.startsWith("@langchain/")),
        e,
      ).toEqual([]);
  }, 600_000);
});
