/** Factory of the local X11 desktop environment. */
import type { BlobStore } from "@retrace-cua/core/blob-store";
import { DesktopEnvironment } from "./desktop-environment.ts";
import { HostX11Backend, type HostX11BackendOptions } from "./host-backend.ts";
import type { SettleOptions } from "./settle.ts";
import type { XdoOptions } from "./xdotool.ts";

/** Options of {@link createX11Desktop}. */
export interface X11DesktopOptions extends HostX11BackendOptions {
  /** Where screenshots go. */
  blobs: BlobStore;
  /** Attach an AT-SPI accessibility tree to every observation. @default false */
  accessibility?: boolean;
  /** Settling after each action (poll interval, quiet period, cap). */
  settle?: SettleOptions;
  /** xdotool details. */
  xdotool?: XdoOptions;
  /** `probe()` includes AT-SPI digests (~0.8 s more per probe, measured). @default true */
  probeAccessibility?: boolean;
}

/**
 * A real desktop on this machine: Xvfb + matchbox + a session D-Bus + Debian apps run as an
 * unprivileged user (default "cua"), driven through xdotool. Close it to end every process.
 */
export function createX11Desktop(options: X11DesktopOptions): DesktopEnvironment {
  const { blobs, accessibility, settle, xdotool, probeAccessibility, ...backend } = options;
  return new DesktopEnvironment({
    backend: new HostX11Backend(backend),
    blobs,
    accessibility,
    settle,
    xdotool,
    probeAccessibility,
  });
}
