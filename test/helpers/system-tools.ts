/**
 * Integration tests that drive real system components (Xvfb and Debian apps, Chromium) start
 * them when they are installed. Outside CI a machine without them skips those tests with one
 * line saying how to install them (`bash .ci/system-deps.sh`); in CI, which installs them, a
 * missing component fails the run loudly instead of skipping.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { runtimeSettings } from "../../packages/core/src/settings.ts";

/** What the X11 desktop environment needs (see README "Real desktops"). */
export const X11_TOOLS = [
  "Xvfb",
  "xdotool",
  "xdpyinfo",
  "import",
  "dbus-daemon",
  "matchbox-window-manager",
  "mousepad",
  "galculator",
  "gnumeric",
  "user:cua",
] as const;
/** What the report test needs. */
export const CHROMIUM_TOOLS = ["/usr/bin/chromium"] as const;

function present(tool: string): boolean {
  if (tool.startsWith("/")) return existsSync(tool);
  const [kind, name] = tool.includes(":") ? tool.split(":") : ["cmd", tool];
  try {
    if (kind === "user") execFileSync("id", ["-u", name], { stdio: "ignore" });
    else if (kind === "pymod") execFileSync("/usr/bin/python3", ["-c", `import ${name}`], { stdio: "ignore" });
    else execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export interface SystemTools {
  /** Run the tests: everything is there, or this is CI (where absence must fail). */
  run: boolean;
  missing: string[];
  /** Throw (in a beforeAll) when something is missing: only reached in CI. */
  assert(): void;
}

/** Check tools once per test file; log the skip reason outside CI. */
export function systemTools(what: string, tools: readonly string[]): SystemTools {
  const missing = tools.filter((t) => !present(t));
  const ci = runtimeSettings().ci;
  if (missing.length && !ci)
    process.stderr.write(
      `skipping ${what}: missing ${missing.join(", ")} (install: bash .ci/system-deps.sh; useradd -m cua)\n`,
    );
  return {
    run: missing.length === 0 || ci,
    missing,
    assert() {
      if (missing.length)
        throw new Error(`${what} needs ${missing.join(", ")}: run bash .ci/system-deps.sh (and useradd -m cua)`);
    },
  };
}
