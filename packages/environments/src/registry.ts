/**
 * One entry point for every environment kind the runner can create: "simdesk" (simulated, the
 * default), "x11" (real apps on this machine's Xvfb), "docker" (real apps in a container per
 * episode, through dockerode; DOCKER_HOST picks the engine) and "browser" (headless Chromium on
 * the built-in web apps or a user's own URL). The same configs run on all of them.
 */
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { EnvironmentFactory } from "@retrace-cua/core/environment";
import { ConfigError } from "@retrace-cua/core/errors";
import { withProbes } from "@retrace-cua/evaluation/probes/with-probes";
import type { Task } from "@retrace-cua/core/task";
import { BROWSER_TASKS } from "@retrace-cua/browser/tasks/index";
import { DESKTOP_TASKS } from "@retrace-cua/desktops/desktop-tasks/tasks";
import { createDockerDesktop } from "@retrace-cua/desktops/docker/create";
import { createSimDesk } from "@retrace-cua/simdesk/simdesk";
import { SIMDESK_TASKS } from "@retrace-cua/simdesk/tasks/index";
import { createX11Desktop } from "@retrace-cua/desktops/x11/create";

/** Environment kinds the registry creates. */
export const ENVIRONMENT_KINDS = ["simdesk", "x11", "docker", "browser"] as const;
export type EnvironmentKind = (typeof ENVIRONMENT_KINDS)[number];

/** Options of {@link createEnvironmentFactory}. */
export interface EnvironmentFactoryOptions {
  /** Where screenshots go. */
  blobs: BlobStore;
  /** Screen width. @default 1280 */
  width?: number;
  /** Screen height. @default 800 */
  height?: number;
  /** Accessibility trees on observations (simdesk and browser default true, x11 default false). */
  accessibility?: boolean;
  /** DOCKER_HOST for "docker" (from packages/core/src/settings.ts runtimeSettings().dockerHost). */
  dockerHost?: string;
  /** Container image for "docker". @default "retrace-desktop:3" */
  image?: string;
  /** Run id on container labels, so `retrace env gc --run <id>` finds them. */
  runId?: string;
  /** Desktop user for "x11" when running as root. @default "cua" */
  user?: string;
  /**
   * Record a state-probe report (files, focus, accessibility digests; SimDesk: hidden state)
   * with every observation, as a blob reference (`Observation.probe`), for the probe verifier.
   * @default false
   */
  probes?: boolean;
  /** Chromium executable for "browser". @default "/usr/bin/chromium" */
  chromium?: string;
}

/** Whether a string names a registry environment kind. */
export function isEnvironmentKind(kind: string): kind is EnvironmentKind {
  return (ENVIRONMENT_KINDS as readonly string[]).includes(kind);
}

/** A factory creating fresh environments of `kind` (one per parallel worker). */
export function createEnvironmentFactory(kind: string, options: EnvironmentFactoryOptions): EnvironmentFactory {
  const make = baseFactory(kind, options);
  if (!options.probes) return make;
  return async () => withProbes(await make(), { blobs: options.blobs });
}

function baseFactory(kind: string, options: EnvironmentFactoryOptions): EnvironmentFactory {
  const size = { width: options.width, height: options.height };
  switch (kind) {
    case "simdesk":
      return async () => createSimDesk({ blobs: options.blobs, ...size, accessibility: options.accessibility });
    case "x11":
      return async () =>
        createX11Desktop({ blobs: options.blobs, ...size, accessibility: options.accessibility, user: options.user });
    case "docker":
      return async () =>
        createDockerDesktop({
          blobs: options.blobs,
          ...size,
          dockerHost: options.dockerHost,
          image: options.image,
          runId: options.runId,
        });
    case "browser":
      // Loaded on first use: playwright-core is heavy, and most commands never open a browser.
      return async () =>
        (await import("@retrace-cua/browser")).createBrowserEnvironment({
          blobs: options.blobs,
          ...size,
          accessibility: options.accessibility,
          chromium: options.chromium,
        });
    default:
      throw new ConfigError(`env kind "${kind}" is unknown (one of: ${ENVIRONMENT_KINDS.join(", ")})`, {
        field: "env.kind",
      });
  }
}

/**
 * The built-in tasks of an environment kind: SimDesk's for "simdesk", the real-app tasks for "x11" and "docker", the
 * web-app suite for "browser".
 */
export function tasksForEnvironment(kind: string): readonly Task[] {
  if (kind === "simdesk") return SIMDESK_TASKS;
  if (kind === "browser") return BROWSER_TASKS;
  if (kind === "x11" || kind === "docker") return DESKTOP_TASKS;
  throw new ConfigError(`env kind "${kind}" is unknown (one of: ${ENVIRONMENT_KINDS.join(", ")})`, {
    field: "env.kind",
  });
}
