/**
 * A local provider for {@link OsworldEnvironment}: each call starts a fresh X11 desktop (fresh
 * home, as X11 resets do) reset to a base desktop task, and retrace's local OSWorld control server
 * over it on 127.0.0.1; `stop()` closes both. This plays the role of OSWorld's docker provider
 * with a VM snapshot revert (one fresh VM per reset), so the recovery evaluation can go back to a
 * task's initial state without a VM image.
 */
import type { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import { desktopTask } from "../desktop-tasks/tasks.ts";
import { createX11Desktop } from "../x11/create.ts";
import { OsworldClient } from "./client.ts";
import { startOsworldControlServer } from "./control-server.ts";

/** Options of {@link localOsworldProvider}. */
export interface LocalOsworldProviderOptions {
  /** Blob store of the underlying X11 desktop's own observations. */
  blobs: BlobStore;
  /** Screen size of the desktop. @default the X11 desktop's default */
  width?: number;
  height?: number;
  /** Desktop task the fresh desktop starts in (its apps and files). @default "mousepad-append-line" */
  baseTask?: string;
}

/** A provider that starts a fresh local desktop + control server per reset. */
export function localOsworldProvider(
  options: LocalOsworldProviderOptions,
): () => Promise<{ client: OsworldClient; stop(): Promise<void> }> {
  const base = desktopTask(options.baseTask ?? "mousepad-append-line");
  if (!base)
    throw new ConfigError(
      `env.provider.baseTask: "${options.baseTask}" is not a desktop task (\`retrace tasks\` lists them)`,
      { field: "env.provider.baseTask" },
    );
  return async () => {
    const desktop = createX11Desktop({
      blobs: options.blobs,
      ...(options.width && options.height && { width: options.width, height: options.height }),
    });
    try {
      await desktop.reset(base);
      const control = await startOsworldControlServer({ env: desktop });
      return {
        client: new OsworldClient({ baseUrl: control.url, chromiumUrl: control.chromiumUrl }),
        async stop() {
          await control.close();
          await desktop.close();
        },
      };
    } catch (err) {
      await desktop.close();
      throw err;
    }
  };
}
