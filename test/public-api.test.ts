/**
 * Pins the public API: the runtime exports of `retrace` (src/index.ts) and `retrace/testing`.
 * A change here is a change users see: update the list deliberately, and say so in the commit.
 */
import { describe, expect, it } from "vitest";
import * as api from "../src/index.ts";
import * as testing from "../src/testing.ts";

const PUBLIC_API = [
    "ACTION_FORMATS", "ALL_PROMPTS", "ActionFormatError", "ActionSchema", "AdapterError", "BlobStore", "BudgetExhaustedError",
    "CACHE_MODES", "ConfigError", "DEFAULT_LOCAL_BLOCK", "DEFAULT_LOCAL_FLOOR", "DEFAULT_SLIP_MIX", "DEFAULT_SSIM_THRESHOLD", "DESKTOP_TASKS",
    "DesktopEnvironment", "DetectorReplySchema", "ENVIRONMENT_KINDS", "EPISODE_EVENT_NAMES",
    "EnvironmentError", "EpisodeEvents", "MANAGED_LABEL", "MODEL_ROLES", "MOUSE_BUTTONS",
    "ModelBehaviorError", "OsworldClient", "OsworldEnvironment", "OsworldPythonBridge", "RECOVERY_CONTEXTS",
    "RECOVERY_DATASET_SCHEMA", "RECOVERY_STEP_STRATEGIES", "RESTORATION_MODES", "RESTORED_TOKEN", "RUN_LABEL",
    "CascadeGateSpecSchema", "DEFAULT_CASCADE_GATES", "RecoveryOptionsSchema", "RetraceError", "SIMDESK_TASKS", "SIM_PROFILES", "SIM_RECOVERER_FLAILING",
    "SIM_RECOVERER_SKILLED", "SIM_RECOVERER_WEAK", "STEP_ROLES", "SelectorReplySchema", "SimDesk",
    "StepTimeoutError", "TRANSITION_PROMPT", "Z95", "actionToPyautogui", "addUsage", "allocateOsworldPorts",
    "anthropicComputerInputToActions", "buildRecoveryDataset", "checkTransitionConsistency",
    "consumeFrozenStep", "correctRecoveryStep", "costUsd", "createAnthropicPolicy", "createCascadeDetector", "createChatPolicy",
    "createDockerClient", "createDockerDesktop", "createEnvironmentFactory", "createErrorMinusOneSelector",
    "createErrorRandomSelector", "createFormatPolicy", "createLangChainChatModel", "createLangChainPolicy",
    "createLlmErrorDetector", "createLlmPerturbationPolicy", "createLlmRecoveryPolicy",
    "createLlmStateVerifier", "createLlmStepSelector", "createLlmSummarizer", "createLoopDetector",
    "createMemoryCheckpointer", "createOpenAIChatModel", "createOpenAICuaPolicy",
    "createPlanDivergenceDetector", "createPyautoguiPolicy", "createRecordReplay", "createRecoveryGraph",
    "createRecoverySubgraph", "createRng", "createSimAgents", "createSimDesk", "createSimDetector",
    "createSimForwardPolicy", "createSimPerturbationPolicy", "createSimRecoveryPolicy",
    "createSimStepSelector", "createSqliteCheckpointer", "createStagnationDetector", "createStateCheck",
    "createStepSelector", "createUiTarsPolicy", "createX11Desktop", "createZeroSelector", "definePrompt",
    "describeError", "describeSimulated", "desktopTask", "detectKvm", "detectorGate", "detectorLabels",
    "detectorStability", "emptyAccounting", "episodeIntent", "errorRandomStep", "evaluateOsworldNative",
    "evaluateRecovery", "executeStep", "executeSteps", "extractCodeBlocks", "formatAction", "getSimDeskTask",
    "groundTruthStability", "guardedDetect", "guardedSelect", "hashValue", "initialFreezeState",
    "isEnvironmentKind", "isTerminal", "judgeRecovery", "keywordIntent", "loadOsworldTasks",
    "loadRecoveryDataset", "noDetection", "observationOracle", "observationSsim",
    "openAIComputerActionToActions", "oracleAgreement", "parseCascadeGates", "osworldContainerSpec", "osworldResultDir",
    "parseCacheMode", "parseOsworldTask", "parsePyautogui", "passAtK", "perturb", "priceFor", "promptRef",
    "proportionOf", "pyautoguiResponseToActions", "recommend", "recoverWithPolicy", "recoveryContextHistory",
    "recoveryMiddleware", "recoveryTable", "recursionLimitFor", "redactSecrets", "releaseOsworldPorts",
    "removeManagedContainers", "renderPrompt", "replayFromReset", "resolveBuildSettings",
    "resolveRecoveryOptions", "retention", "rolloutPolicy", "runEpisode", "runOsworldSetup",
    "saveRecoveryDataset", "screenshotSsim", "screenshotsMatch", "sha256Hex", "stabilityOf",
    "stableStringify", "startFreeze", "startOsworldControlServer", "startOsworldVm", "successAtK",
    "successAtKCurve", "summarizeStability", "tasksForEnvironment", "trajLine", "trajectoryTruth",
    "transitionNotice", "transitionOracle", "truncateHistory", "twoProportionPValue", "uiTarsToActions",
    "wilsonInterval", "withCache", "withRecovery", "withoutTiming", "writeEpisodeOutput",
    "writeOsworldResult", "xdotoolKeysToActions",
    // issue 14: masked observation oracle R_Om, rationale analysis, embeddings client
    "createOpenAIEmbeddings", "dilateMask", "learnDynamicMask", "loadMask", "maskFraction", "maskedObservationOracle",
    "maskedScreenshotSsim", "recoveryReference", "saveMask", "scoreRationales", "unionMasks",
    // state probes and verifiers (issue 14 §2)
    "DEFAULT_PROBE_IGNORE", "ProbeVerifierSpecSchema", "compareProbeReports", "createAgenticLlmVerifier",
    "createProbeVerifier", "loadProbeReport", "probeVerifierFromSpec", "makeProbeReport", "storeProbeReport", "withProbes",
];

describe("the public API", () => {
  it("exports exactly the pinned names from src/index.ts", () => {
    expect(Object.keys(api).sort()).toEqual([...PUBLIC_API].sort());
  });

  it("exports the scripted OpenAI-compatible server from retrace/testing", () => {
    expect(Object.keys(testing).sort()).toEqual(["startScriptedOpenAIServer"]);
  });

  it("offers the entry points a user wraps an agent with", () => {
    expect(typeof api.withRecovery).toBe("function");
    expect(typeof api.runEpisode).toBe("function");
    expect(typeof api.createRecoveryGraph).toBe("function");
    expect(api.RecoveryOptionsSchema.parse({})).toMatchObject({ freezeWindow: 5, recoveryBudget: 10, maxForwardSteps: 50 });
  });
});
