/** RETRACE_SHARP_CONCURRENCY: read in packages/core/src/settings.ts, applied by the SimDesk renderer in its own process. */
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../../packages/core/src/errors.ts";
import { runtimeSettings } from "../../../../packages/core/src/settings.ts";

/** sharp's thread count in a fresh process before and after one SimDesk render. */
function threadsIn(env: NodeJS.ProcessEnv): { before: number; after: number } {
  const probe = fileURLToPath(new URL("./fixtures/sharp-threads-probe.ts", import.meta.url));
  const out = execFileSync(process.execPath, ["--conditions=retrace-dev", "--import", "tsx", probe], {
    env: { ...process.env, ...env },
  });
  return JSON.parse(out.toString());
}

describe("RETRACE_SHARP_CONCURRENCY", () => {
  it("is parsed as a whole number of threads, with a one-line error naming the variable otherwise", () => {
    expect(runtimeSettings({ RETRACE_SHARP_CONCURRENCY: "1" }).sharpConcurrency).toBe(1);
    expect(runtimeSettings({}).sharpConcurrency).toBeUndefined();
    expect(() => runtimeSettings({ RETRACE_SHARP_CONCURRENCY: "two" })).toThrow(ConfigError);
    expect(() => runtimeSettings({ RETRACE_SHARP_CONCURRENCY: "0" })).toThrow(
      /^RETRACE_SHARP_CONCURRENCY: expected a whole number of threads from 1 to 1024, got "0"$/,
    );
    // The one numeric parser's rules (experiments' flags use it too): no hex, no exponent, no empty text.
    expect(() => runtimeSettings({ RETRACE_SHARP_CONCURRENCY: "0x2" })).toThrow(
      /^RETRACE_SHARP_CONCURRENCY: expected a whole number of threads from 1 to 1024, got "0x2"$/,
    );
    expect(() => runtimeSettings({ RETRACE_SHARP_CONCURRENCY: "1e1" })).toThrow(/got "1e1"$/);
    expect(() => runtimeSettings({ RETRACE_SHARP_CONCURRENCY: " " })).toThrow(/got " " \(empty\)$/);
  });

  it("a bad value is one line from the CLI with exit 2, not a stack trace when the logger loads", () => {
    const bin = fileURLToPath(new URL("../../../../experiments/bin/retrace.mjs", import.meta.url));
    const r = spawnSync(process.execPath, [bin, "tasks"], {
      env: { ...process.env, RETRACE_SHARP_CONCURRENCY: "two" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.stderr).toBe(
      'retrace: RETRACE_SHARP_CONCURRENCY: expected a whole number of threads from 1 to 1024, got "two"\n',
    );
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
  }, 90_000);

  it("sets libvips to that many threads in a process that renders SimDesk screens", () => {
    const set = threadsIn({ RETRACE_SHARP_CONCURRENCY: "1" });
    expect(set.after).toBe(1);
    const unset = threadsIn({ RETRACE_SHARP_CONCURRENCY: "" });
    expect(unset.after).toBe(unset.before);
    // The default pool differs from 1 on a multi-core machine, so the first case is not vacuous there.
    if (unset.before > 1) expect(set.after).not.toBe(unset.before);
  });
});
