/**
 * `retrace-cua/adapters`: real environments. The environment registry, X11 desktops on the host,
 * container desktops (dockerode), OSWorld (client, control server, VMs, tasks, runner) and a
 * headless Chromium on three built-in web apps. Models are in `retrace-cua/models`, SimDesk in
 * `retrace-cua/simdesk`, LangChain in `retrace-cua/langchain`. Loads no vendor SDK and no
 * LangGraph at import. Explicit named exports only. Pinned by test/public-api.test.ts.
 */
export { createEnvironmentFactory, tasksForEnvironment, isEnvironmentKind, ENVIRONMENT_KINDS } from "./registry.ts";
export type { EnvironmentFactoryOptions, EnvironmentKind } from "./registry.ts";
export { createX11Desktop } from "@retrace-cua/desktops/x11/create";
export type { X11DesktopOptions } from "@retrace-cua/desktops/x11/create";
export { DesktopEnvironment } from "@retrace-cua/desktops/x11/desktop-environment";
export type { DesktopEnvironmentOptions, DesktopStepTimings } from "@retrace-cua/desktops/x11/desktop-environment";
export { createDockerDesktop } from "@retrace-cua/desktops/docker/create";
export type { DockerDesktopOptions } from "@retrace-cua/desktops/docker/create";
export {
  createDockerClient,
  removeManagedContainers,
  MANAGED_LABEL,
  RUN_LABEL,
} from "@retrace-cua/desktops/docker/engine";
export { DESKTOP_TASKS, desktopTask } from "@retrace-cua/desktops/desktop-tasks/tasks";
export type {
  DesktopTask,
  DesktopCheck,
  DesktopSetup,
  DesktopEvaluator,
} from "@retrace-cua/desktops/desktop-tasks/types";
export { createPlanDivergenceDetector } from "@retrace-cua/desktops/desktop-tasks/plan-detector";
export { OsworldClient } from "@retrace-cua/desktops/osworld/client";
export type { OsworldClientOptions, OsworldExecResult } from "@retrace-cua/desktops/osworld/client";
export { startOsworldControlServer } from "@retrace-cua/desktops/osworld/control-server";
export type { OsworldControlServer, OsworldControlServerOptions } from "@retrace-cua/desktops/osworld/control-server";
export { OsworldEnvironment, actionToPyautogui } from "@retrace-cua/desktops/osworld/environment";
export type { OsworldEnvironmentOptions } from "@retrace-cua/desktops/osworld/environment";
export {
  startOsworldVm,
  osworldContainerSpec,
  allocateOsworldPorts,
  releaseOsworldPorts,
  detectKvm,
} from "@retrace-cua/desktops/osworld/provider";
export type { OsworldVm, OsworldPorts, StartOsworldVmOptions } from "@retrace-cua/desktops/osworld/provider";
export { loadOsworldTasks, parseOsworldTask } from "@retrace-cua/desktops/osworld/tasks";
export type {
  OsworldTask,
  OsworldSupport,
  OsworldLoadReport,
  OsworldRejection,
} from "@retrace-cua/desktops/osworld/tasks";
export {
  runOsworldSetup,
  evaluateOsworldNative,
  osworldResultDir,
  writeOsworldResult,
} from "@retrace-cua/desktops/osworld/runner";
export { OsworldPythonBridge } from "@retrace-cua/desktops/osworld/python-bridge";
export {
  createBrowserEnvironment,
  BrowserEnvironment,
  BROWSER_TASKS,
  loadBrowserTaskFile,
  startAppServer,
} from "@retrace-cua/browser";
export type {
  CreateBrowserOptions,
  BrowserEnvironmentOptions,
  BrowserTask,
  BrowserChecker,
  AppServer,
} from "@retrace-cua/browser";
