/** Factory of container desktops (one container per episode) through dockerode. */
import type Docker from "dockerode";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import { DesktopEnvironment } from "../x11/desktop-environment.ts";
import type { SettleOptions } from "../x11/settle.ts";
import type { XdoOptions } from "../x11/xdotool.ts";
import { ContainerBackend, type ContainerBackendOptions } from "./container-backend.ts";
import { createDockerClient } from "./engine.ts";

/** Options of {@link createDockerDesktop}. */
export interface DockerDesktopOptions extends Omit<ContainerBackendOptions, "docker"> {
  /** Where screenshots go. */
  blobs: BlobStore;
  /** A dockerode client; default: one for `dockerHost`. */
  docker?: Docker;
  /** DOCKER_HOST value (read by packages/core/src/settings.ts at the edge). @default the local Docker socket */
  dockerHost?: string;
  /** Settling after each action. */
  settle?: SettleOptions;
  /** xdotool details. */
  xdotool?: XdoOptions;
}

/**
 * A desktop in a fresh container per `reset(task)`, labelled `retrace.managed=true` so leftovers
 * of a crashed run are found by `retrace env gc`. Works with Docker and with podman's API service.
 */
export function createDockerDesktop(options: DockerDesktopOptions): DesktopEnvironment {
  const { blobs, docker, dockerHost, settle, xdotool, ...rest } = options;
  const backend = new ContainerBackend({ ...rest, docker: docker ?? createDockerClient(dockerHost) });
  return new DesktopEnvironment({ backend, blobs, settle, xdotool });
}
