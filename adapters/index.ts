/**
 * `retrace-cua/adapters`: real environments. The environment registry, X11 desktops on the host,
 * container desktops (dockerode), OSWorld (client, control server, VMs, tasks, runner) and a
 * headless Chromium on three built-in web apps. Models are in `retrace-cua/models`, SimDesk in
 * `retrace-cua/simdesk`, LangChain in `retrace-cua/langchain`. Loads no vendor SDK and no
 * LangGraph at import. Explicit named exports only. Pinned by test/public-api.test.ts.
 */
export {
  createEnvironmentFactory,
  tasksForEnvironment,
  isEnvironmentKind,
  ENVIRONMENT_KINDS,
} from "./environments/registry.ts";
export type { EnvironmentFactoryOptions, EnvironmentKind } from "./environments/registry.ts";
export { createX11Desktop } from "./environments/x11/create.ts";
export type { X11DesktopOptions } from "./environments/x11/create.ts";
export { DesktopEnvironment } from "./environments/x11/desktop-environment.ts";
export type { DesktopEnvironmentOptions, DesktopStepTimings } from "./environments/x11/desktop-environment.ts";
export { createDockerDesktop } from "./environments/docker/create.ts";
export type { DockerDesktopOptions } from "./environments/docker/create.ts";
export { createDockerClient, removeManagedContainers, MANAGED_LABEL, RUN_LABEL } from "./environments/docker/engine.ts";
export { DESKTOP_TASKS, desktopTask } from "./environments/desktop-tasks/tasks.ts";
export type { DesktopTask, DesktopCheck, DesktopSetup, DesktopEvaluator } from "./environments/desktop-tasks/types.ts";
export { createPlanDivergenceDetector } from "./environments/desktop-tasks/plan-detector.ts";
export { OsworldClient } from "./environments/osworld/client.ts";
export type { OsworldClientOptions, OsworldExecResult } from "./environments/osworld/client.ts";
export { startOsworldControlServer } from "./environments/osworld/control-server.ts";
export type { OsworldControlServer, OsworldControlServerOptions } from "./environments/osworld/control-server.ts";
export { OsworldEnvironment, actionToPyautogui } from "./environments/osworld/environment.ts";
export type { OsworldEnvironmentOptions } from "./environments/osworld/environment.ts";
export {
  startOsworldVm,
  osworldContainerSpec,
  allocateOsworldPorts,
  releaseOsworldPorts,
  detectKvm,
} from "./environments/osworld/provider.ts";
export type { OsworldVm, OsworldPorts, StartOsworldVmOptions } from "./environments/osworld/provider.ts";
export { loadOsworldTasks, parseOsworldTask } from "./environments/osworld/tasks.ts";
export type { OsworldTask, OsworldSupport, OsworldLoadReport, OsworldRejection } from "./environments/osworld/tasks.ts";
export {
  runOsworldSetup,
  evaluateOsworldNative,
  osworldResultDir,
  writeOsworldResult,
} from "./environments/osworld/runner.ts";
export { OsworldPythonBridge } from "./environments/osworld/python-bridge.ts";
export {
  createBrowserEnvironment,
  BrowserEnvironment,
  BROWSER_TASKS,
  loadBrowserTaskFile,
  startAppServer,
} from "./environments/browser/index.ts";
export type {
  CreateBrowserOptions,
  BrowserEnvironmentOptions,
  BrowserTask,
  BrowserChecker,
  AppServer,
} from "./environments/browser/index.ts";
