/**
 * SimDesk: retrace's built-in simulated desktop. An in-process, deterministic desktop with a
 * file manager, a text editor, a settings app and a spreadsheet, hidden state (files, config,
 * clipboard, undo stacks), PNG screenshots rendered with sharp, and a ground-truth surface
 * (`SimGroundTruth`) for simulated policies and oracles.
 *
 * Plans (`SimDeskTask.plan`) hold one UI action per step and do not end with DONE; a policy
 * emits DONE when its plan is exhausted. Layout is anchored top-left, so plans built at
 * 1280x800 work unchanged on larger screens such as 1920x1080.
 */
export { SimDesk, createSimDesk } from "./desk.ts";
export type { SimDeskOptions } from "./desk.ts";
export { SLIP_KINDS } from "@retrace-cua/core/ground-truth";
export type {
  SimDeskTask,
  SimGroundTruth,
  MistakeSpec,
  RestorativeStep,
  SlipKind,
} from "@retrace-cua/core/ground-truth";
export { SimDeskSetupSchema, initialState } from "./setup.ts";
export type { SimDeskSetup } from "./setup.ts";
export { evaluateState } from "./evaluate.ts";
export type { Check, SimDeskEvaluator } from "./evaluate.ts";
export { applyAction } from "./engine.ts";
export type { ActionInfo } from "./engine.ts";
export { fullStateHash, semanticHash, semanticView } from "./hashing.ts";
export type { DeskState } from "./types.ts";
export { SIMDESK_TASKS, getSimDeskTask } from "./tasks/index.ts";
export { defineSimDeskTask, PlanBuilder } from "./tasks/builder.ts";
export type { TaskDef } from "./tasks/builder.ts";
