/**
 * @retrace-cua/desktops: retrace's desktop environments: X11 (Xvfb), containers (dockerode), OSWorld.
 * Explicit named exports only: the names the other entries re-export from it.
 */
export { createPlanDivergenceDetector } from "./desktop-tasks/plan-detector.ts";
export { DESKTOP_TASKS, desktopTask } from "./desktop-tasks/tasks.ts";
export type { DesktopCheck, DesktopEvaluator, DesktopSetup, DesktopTask } from "./desktop-tasks/types.ts";
export { createDockerDesktop } from "./docker/create.ts";
export type { DockerDesktopOptions } from "./docker/create.ts";
export { MANAGED_LABEL, RUN_LABEL, createDockerClient, removeManagedContainers } from "./docker/engine.ts";
export { OsworldClient } from "./osworld/client.ts";
export type { OsworldClientOptions, OsworldExecResult } from "./osworld/client.ts";
export { startOsworldControlServer } from "./osworld/control-server.ts";
export type { OsworldControlServer, OsworldControlServerOptions } from "./osworld/control-server.ts";
export { OsworldEnvironment, actionToPyautogui } from "./osworld/environment.ts";
export type { OsworldEnvironmentOptions } from "./osworld/environment.ts";
export {
  allocateOsworldPorts,
  detectKvm,
  osworldContainerSpec,
  releaseOsworldPorts,
  startOsworldVm,
} from "./osworld/provider.ts";
export type { OsworldPorts, OsworldVm, StartOsworldVmOptions } from "./osworld/provider.ts";
export { OsworldPythonBridge } from "./osworld/python-bridge.ts";
export { evaluateOsworldNative, osworldResultDir, runOsworldSetup, writeOsworldResult } from "./osworld/runner.ts";
export { loadOsworldTasks, parseOsworldTask } from "./osworld/tasks.ts";
export type { OsworldLoadReport, OsworldRejection, OsworldSupport, OsworldTask } from "./osworld/tasks.ts";
export { createX11Desktop } from "./x11/create.ts";
export type { X11DesktopOptions } from "./x11/create.ts";
export { DesktopEnvironment } from "./x11/desktop-environment.ts";
export type { DesktopEnvironmentOptions, DesktopStepTimings } from "./x11/desktop-environment.ts";
