/**
 * `retrace-cua/experiments`: the experiment runner as a library. Load a config, pick a runtime
 * (SimDesk with seeded simulated agents, a desktop, the browser apps, OSWorld), run it into a run
 * folder, and summarize the results; agent kinds come from a registry a user can extend. The
 * `retrace` CLI (experiments/cli.ts) is built on these. Explicit named exports only. Pinned by
 * test/public-api.test.ts.
 */
export { parseExperimentConfig, loadExperimentConfig } from "./config/load.ts";
export { ExperimentConfigSchema } from "./config/schema.ts";
export type { ExperimentConfig, IdealRecoveryConfig, EndToEndConfig, SweepConfig, EnvSpec } from "./config/schema.ts";
export { runExperiment } from "./runner/experiment.ts";
export type { ExperimentRun, Manifest } from "./runner/experiment.ts";
export type { RunSettings } from "./runner/context.ts";
export type { ExperimentRuntime, ComponentContext, SkippedTask } from "./runner/runtime.ts";
export type { ResultLine } from "./runner/results-log.ts";
export { summarize, summaryCsv, SIMULATED_NOTE } from "./runner/summary.ts";
export type { ExperimentSummary, ConditionSummary } from "./runner/summary.ts";
export { createSimDeskRuntime } from "./runtime/simdesk.ts";
export { withDesktopEnv } from "./runtime/desktop.ts";
export type { DesktopRuntimeOptions } from "./runtime/desktop.ts";
export { withBrowserEnv } from "./runtime/browser.ts";
export { createOsworldRuntime } from "./runtime/osworld.ts";
// Agents from config: one kind per file in experiments/agents/, listed by the registry.
export { AGENT_ROLES } from "./agents/roles.ts";
export type { AgentRole, AgentOf, AgentContext, ModelCallSettings } from "./agents/roles.ts";
export type { AgentKind, ValidAgentSpec } from "./agents/kind.ts";
export { validateAgentSpec, createAgent, registerAgentKind, agentKinds } from "./agents/registry.ts";
// Recovery evaluation on SimDesk (dataset, implicit/explicit recovery runs, oracle agreement).
export {
  buildSimDeskDataset,
  runSimDeskRecoveryEval,
  runOracleAgreement,
  runRecoveryEvalSuite,
} from "./recovery-eval/run.ts";
export type {
  SimDeskDatasetOptions,
  SimDeskEvalOptions,
  OracleAgreementOptions,
  RecoveryEvalSuiteOptions,
} from "./recovery-eval/run.ts";
