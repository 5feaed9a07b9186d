/**
 * Pins the public surface: one entry per layer in the package `exports` map, each with exactly
 * these runtime exports. `retrace` (graphs/index.ts: the runtime and core types), `retrace-cua/adapters`
 * (adapters/index.ts), `retrace-cua/testing` (adapters/testing/index.ts), `retrace-cua/experiments`
 * (experiments/index.ts). A change here is a change users see: update a list deliberately, and say
 * so in the commit. The entries are imported by the package name, so the exports map is tested too.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as retrace from "retrace-cua";
import * as adapters from "retrace-cua/adapters";
import * as testing from "retrace-cua/testing";
import * as experiments from "retrace-cua/experiments";
import * as openaiAgents from "retrace-cua/openai-agents";
import * as aiSdk from "retrace-cua/ai-sdk";
import * as stagehand from "retrace-cua/stagehand";

const RETRACE = [
  "ALL_PROMPTS", "ActionSchema", "AdapterError", "BlobStore", "BudgetExhaustedError", "CascadeGateSpecSchema",
  "ConfigError", "DEFAULT_CASCADE_GATES", "DEFAULT_LOCAL_BLOCK", "DEFAULT_LOCAL_FLOOR", "DEFAULT_PROBE_IGNORE",
  "DEFAULT_SSIM_THRESHOLD", "EPISODE_EVENT_NAMES", "EnvironmentError", "EpisodeEvents", "MODEL_ROLES",
  "MOUSE_BUTTONS", "ModelBehaviorError", "ProbeVerifierSpecSchema", "RECOVERY_CONTEXTS",
  "RECOVERY_DATASET_SCHEMA", "RECOVERY_STEP_STRATEGIES", "RESTORATION_MODES", "RecoveryOptionsSchema",
  "RetraceError", "STEP_ROLES", "StepTimeoutError", "TRANSITION_PROMPT", "Z95", "addUsage",
  "buildRecoveryDataset", "checkTransitionConsistency", "compareProbeReports", "consumeFrozenStep",
  "createCascadeDetector", "createErrorMinusOneSelector", "createErrorRandomSelector", "createLoopDetector",
  "createMemoryCheckpointer", "createProbeVerifier", "createRecoveryGraph", "createRecoverySubgraph",
  "createRng", "createSqliteCheckpointer", "createStagnationDetector", "createStateCheck", "createStepSelector",
  "createZeroSelector", "definePrompt", "describeError", "detectorGate", "detectorLabels", "detectorStability",
  "dilateMask", "emptyAccounting", "episodeIntent", "errorRandomStep", "evaluateRecovery", "executeStep",
  "executeSteps", "formatAction", "groundTruthStability", "guardedDetect", "guardedSelect", "hashValue",
  "initialFreezeState", "isTerminal", "judgeRecovery", "keywordIntent", "learnDynamicMask", "loadMask",
  "loadProbeReport", "loadRecoveryDataset", "makeProbeReport", "maskFraction", "maskedObservationOracle",
  "maskedScreenshotSsim", "noDetection", "observationOracle", "observationSsim", "oracleAgreement",
  "parseCascadeGates", "passAtK", "perturb", "probeVerifierFromSpec", "promptRef", "proportionOf", "recommend",
  "recoveryContextHistory", "recoveryReference", "recoveryTable", "recursionLimitFor", "renderPrompt",
  "replayFromReset", "resolveBuildSettings", "resolveRecoveryOptions", "retention", "rolloutPolicy",
  "runEpisode", "saveMask", "saveRecoveryDataset", "scoreRationales", "screenshotSsim", "screenshotsMatch",
  "sha256Hex", "stabilityOf", "stableStringify", "startFreeze", "storeProbeReport", "successAtK",
  "successAtKCurve", "summarizeStability", "trajLine", "transitionNotice", "transitionOracle",
  "truncateHistory", "twoProportionPValue", "unionMasks", "wilsonInterval", "withProbes", "withRecovery",
  "withoutTiming", "writeEpisodeOutput"
];

const ADAPTERS = [
  "ACTION_FORMATS", "ActionFormatError", "BROWSER_TASKS", "BrowserEnvironment", "CACHE_MODES",
  "DEFAULT_SLIP_MIX", "DESKTOP_TASKS", "DesktopEnvironment", "DetectorReplySchema", "ENVIRONMENT_KINDS",
  "MANAGED_LABEL", "OsworldClient", "OsworldEnvironment", "OsworldPythonBridge", "RESTORED_TOKEN", "RUN_LABEL",
  "SIMDESK_TASKS", "SIM_PROFILES", "SIM_RECOVERER_FLAILING", "SIM_RECOVERER_SKILLED", "SIM_RECOVERER_WEAK",
  "SelectorReplySchema", "SimDesk", "actionToPyautogui", "allocateOsworldPorts",
  "anthropicComputerInputToActions", "correctRecoveryStep", "costUsd", "createAgenticLlmVerifier",
  "createAnthropicPolicy", "createBrowserEnvironment", "createChatPolicy", "createDockerClient",
  "createDockerDesktop", "createEnvironmentFactory", "createFormatPolicy", "createLangChainChatModel",
  "createLangChainPolicy", "createLlmErrorDetector", "createLlmPerturbationPolicy", "createLlmRecoveryJudge", "createLlmRecoveryPolicy",
  "createLlmStateVerifier", "createLlmStepSelector", "createLlmSummarizer", "createOpenAIChatModel",
  "createOpenAICuaPolicy", "createOpenAIEmbeddings", "createPlanDivergenceDetector", "createPyautoguiPolicy",
  "createRecordReplay", "createSimAgents", "createSimDesk", "createSimDetector", "createSimForwardPolicy",
  "createSimPerturbationPolicy", "createSimRecoveryPolicy", "createSimStepSelector", "createUiTarsPolicy",
  "createX11Desktop", "describeSimulated", "desktopTask", "detectKvm", "evaluateOsworldNative",
  "extractCodeBlocks", "getSimDeskTask", "isEnvironmentKind", "loadBrowserTaskFile", "loadOsworldTasks",
  "openAIComputerActionToActions", "osworldContainerSpec", "osworldResultDir", "parseCacheMode",
  "parseOsworldTask", "parsePyautogui", "priceFor", "pyautoguiResponseToActions", "recoverWithPolicy",
  "RECOVERY_EVENT", "recoveryMiddleware", "redactSecrets", "releaseOsworldPorts", "removeManagedContainers", "runOsworldSetup",
  "startAppServer", "startOsworldControlServer", "startOsworldVm", "tasksForEnvironment", "trajectoryTruth",
  "uiTarsToActions", "withCache", "writeOsworldResult", "xdotoolKeysToActions"
];

const TESTING = [
  "STAND_IN_MODEL", "startScriptedOpenAIServer", "startStandInServer"
];

const EXPERIMENTS = [
  "AGENT_ROLES", "ExperimentConfigSchema", "SIMULATED_NOTE", "agentKinds", "buildSimDeskDataset", "createAgent",
  "createOsworldRuntime", "createSimDeskRuntime", "loadExperimentConfig", "parseExperimentConfig",
  "registerAgentKind", "runExperiment", "runOracleAgreement", "runRecoveryEvalSuite", "runSimDeskRecoveryEval",
  "summarize", "summaryCsv", "validateAgentSpec", "withBrowserEnv", "withDesktopEnv"
];

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VENDOR_SDKS = ["openai", "@anthropic-ai/sdk", "dockerode", "bullmq", "ioredis", "pg", "playwright-core", "@openai/agents", "ai", "@ai-sdk/anthropic", "@browserbasehq/stagehand"];
/** Optional peers that are not vendor SDKs but must not load with an entry either (package.json peerDependenciesMeta). */
const OPTIONAL_PEERS = ["sharp", "langchain", "better-sqlite3", "@langchain/langgraph-checkpoint-sqlite", "@langchain/langgraph-checkpoint-postgres", "chart.js", "cli-progress", "pino"]; // (tsx: the probe itself runs under it)

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
  const { stdout } = await promisify(execFile)(process.execPath, ["--conditions=retrace-dev", "--import", "tsx", "--input-type=module", "-e", script, entry], { cwd: ROOT, timeout: 120_000 });
  return JSON.parse(stdout) as string[];
}

/** The SDK entries: each its own, so that a user of one SDK never loads the other. */
const OPENAI_AGENTS = ["AgentsRecovery", "RECOVERY_SPAN_NAME", "RetraceComputer", "agentForwardPolicy", "createAgentsRecovery", "retraceComputer", "runWithRecovery"];
const AI_SDK = ["AiSdkRecovery", "RECOVERY_SPAN", "aiSdkForwardPolicy", "createRecovery", "generateTextWithRecovery", "recoverySpanAttributes", "retraceComputerTool"];
const STAGEHAND = ["STAGEHAND_READ_ONLY_TOOLS", "executeWithRecovery", "stagehandForwardPolicy", "stagehandToolCallToActions"];

describe("the public surface", () => {
  it("exports exactly the pinned names from retrace (the runtime)", () => {
    expect(Object.keys(retrace).sort()).toEqual([...RETRACE].sort());
  });

  it("exports exactly the pinned names from retrace/adapters", () => {
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
    expect(retrace.RecoveryOptionsSchema.parse({})).toMatchObject({ freezeWindow: 5, recoveryBudget: 10, maxForwardSteps: 50 });
  });

  it("gives each exported name one home: no entry repeats another's", () => {
    const seen = [RETRACE, ADAPTERS, TESTING, EXPERIMENTS, OPENAI_AGENTS, AI_SDK, STAGEHAND].flat();
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("loads no vendor SDK and no optional peer when a script imports retrace, retrace/adapters, /testing or /experiments, no LangGraph with retrace, and each SDK entry its own SDK only", async () => {
    const name = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string }).name;
    const entries = [name, ...["adapters", "testing", "experiments", "openai-agents", "ai-sdk"].map((e) => `${name}/${e}`)];
    const loaded = new Map<string, string[]>();
    for (const e of entries) loaded.set(e, await packagesLoadedBy(e));
    for (const e of entries.slice(0, 4)) expect(loaded.get(e)!.filter((p) => VENDOR_SDKS.includes(p) || OPTIONAL_PEERS.includes(p)), e).toEqual([]);
    // The main entry loads LangGraph and LangChain's core on first use (runEpisode, withRecovery(...).run,
    // createRecoveryGraph, a checkpointer's first call), not at import; the probe sees zod, which it does load.
    expect(loaded.get(name)).toContain("zod");
    expect(loaded.get(name)!.filter((p) => p.startsWith("@langchain/") || p === "langsmith")).toEqual([]);
    // The same probe on retrace/adapters (which builds LangChain models) finds LangGraph, so the empty list above is not a blind probe.
    expect(loaded.get(`${name}/adapters`)).toContain("@langchain/langgraph");
    // The same probe on an SDK entry finds that SDK (so the empty lists above are not a blind probe), and no other.
    expect(loaded.get(`${name}/openai-agents`)).toEqual(expect.arrayContaining(["@openai/agents", "openai"]));
    expect(loaded.get(`${name}/openai-agents`)!.filter((p) => ["ai", "@ai-sdk/anthropic", "@browserbasehq/stagehand", "sharp", "playwright-core", "dockerode"].includes(p))).toEqual([]);
    expect(loaded.get(`${name}/ai-sdk`)).toEqual(expect.arrayContaining(["ai", "@ai-sdk/anthropic"]));
    expect(loaded.get(`${name}/ai-sdk`)!.filter((p) => ["openai", "@openai/agents", "@browserbasehq/stagehand", "sharp", "playwright-core", "dockerode"].includes(p))).toEqual([]);
    // Neither SDK entry loads LangGraph: their wrappers plug into the SDK's own loop.
    for (const e of ["openai-agents", "ai-sdk"]) expect(loaded.get(`${name}/${e}`)!.filter((p) => p.startsWith("@langchain/")), e).toEqual([]);
  }, 600_000);
});
