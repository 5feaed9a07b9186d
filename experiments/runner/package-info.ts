/** The package's root folder and version, from the sources (tsx) and from the build (dist/) alike. */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** The @retrace-cua/experiments package: one folder up from the sources (experiments/runner/), two from the build (experiments/dist/runner/). */
export const PACKAGE_ROOT = existsSync(join(here, "../package.json")) ? join(here, "..") : join(here, "../..");

/** The package.json version. */
export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}
