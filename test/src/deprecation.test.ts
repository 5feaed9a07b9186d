/**
 * Old knob names (packages/core/src/deprecation.ts): each old name warns once per process, in one line naming
 * the old and the new name, through the logger unless a sink (the CLI's) is set; giving both
 * names is a ConfigError.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  renameDeprecatedKeys,
  resetDeprecationWarnings,
  setDeprecationSink,
  warnDeprecated,
} from "../../packages/core/src/deprecation.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";

afterEach(() => {
  setDeprecationSink();
  resetDeprecationWarnings();
  vi.restoreAllMocks();
});

describe("deprecated names", () => {
  it("warn once per process per old name, in one line naming both names", () => {
    const lines: string[] = [];
    setDeprecationSink((m) => lines.push(m));
    warnDeprecated("sweep config", "retryCap", "maxRecoveryIterations");
    warnDeprecated("another place", "retryCap", "maxRecoveryIterations");
    warnDeprecated("runWithRecovery", "budget", "recoveryBudget");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^sweep config: "retryCap" is deprecated, use "maxRecoveryIterations"/);
    expect(lines[1]).toMatch(/"budget" is deprecated, use "recoveryBudget"/);
    expect(lines.every((l) => !l.includes("\n"))).toBe(true);
  });

  it("go to the logger (one JSON warn record on stderr) when no sink is set", () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation(
      (chunk: string | Uint8Array) => (written.push(String(chunk)), true),
    );
    warnDeprecated("recoverWithPolicy", "budget", "recoveryBudget");
    warnDeprecated("recoverWithPolicy", "budget", "recoveryBudget");
    expect(written).toHaveLength(1);
    const record = JSON.parse(written[0]) as Record<string, unknown>;
    expect(record).toMatchObject({
      level: 40,
      name: "retrace",
      deprecated: "budget",
      use: "recoveryBudget",
      where: "recoverWithPolicy",
    });
    expect(String(record.msg)).toContain('"budget" is deprecated, use "recoveryBudget"');
  });

  it("renameDeprecatedKeys moves an old key to its new name without touching the input", () => {
    setDeprecationSink(() => undefined);
    const given = { budget: 4, seed: 1 };
    const out = renameDeprecatedKeys("x", given, { budget: "recoveryBudget" });
    expect(out).toEqual({ recoveryBudget: 4, seed: 1 });
    expect(given).toEqual({ budget: 4, seed: 1 });
    const plain = { recoveryBudget: 4 };
    expect(renameDeprecatedKeys("x", plain, { budget: "recoveryBudget" })).toBe(plain);
    expect(renameDeprecatedKeys("x", null, { budget: "recoveryBudget" })).toBeNull();
  });

  it("refuses the old and the new name together", () => {
    expect(() =>
      renameDeprecatedKeys("runWithRecovery", { budget: 4, recoveryBudget: 5 }, { budget: "recoveryBudget" }),
    ).toThrow(ConfigError);
    expect(() =>
      renameDeprecatedKeys("runWithRecovery", { budget: 4, recoveryBudget: 5 }, { budget: "recoveryBudget" }),
    ).toThrow(/^runWithRecovery: give "recoveryBudget" only \("budget" is its deprecated name; both were given\)$/);
  });
});
