/**
 * One error hierarchy: every error retrace's library code throws is a `RetraceError` subclass
 * with a stable `code` (packages/core/src/errors.ts; the table in docs/reliability.md#error-codes). A source
 * scan finds bare `throw new Error(` and classes that extend `Error` directly, and each error
 * class in packages/core/src/errors.ts is checked for its code.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as errors from "../../packages/core/src/errors.ts";
import { ActionFormatError } from "../../packages/models/src/actions/errors.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const LIBRARY = [
  ...readdirSync(join(ROOT, "packages"))
    .filter((p) => existsSync(join(ROOT, "packages", p, "src")))
    .map((p) => `packages/${p}/src`),
  "experiments",
];

/** Files allowed a bare `Error`, each with its reason. */
const EXEMPT: Record<string, string> = {
  "experiments/report/client.ts":
    "the report page's own script, run in the browser (a string), where retrace's classes do not exist",
  "experiments/chaos/env-faults.ts": "the chaos 'crash' fault simulates a foreign (non-retrace) error on purpose",
};

function libraryFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "dist" && e.name !== "node_modules") walk(p);
      } else if (/\.(ts|mjs)$/.test(e.name) && !/\.test\.ts$/.test(e.name)) out.push(relative(ROOT, p));
    }
  };
  for (const d of LIBRARY) walk(join(ROOT, d));
  return out;
}

describe("the error hierarchy", () => {
  it("has no bare `throw new Error(` / `RangeError(` / `TypeError(` and no class extending Error directly in library code", () => {
    const files = libraryFiles();
    expect(files.length).toBeGreaterThan(300);
    const offenders: string[] = [];
    for (const f of files) {
      if (EXEMPT[f]) continue;
      const text = readFileSync(join(ROOT, f), "utf8");
      text.split("\n").forEach((line, i) => {
        // Bare built-in errors (Error, RangeError, TypeError...) and classes extending them directly.
        if (
          /throw new (Range|Type|Syntax|Reference|Eval|URI)?Error\(/.test(line) ||
          (/\bclass \w+ extends (Range|Type)?Error\b/.test(line) && f !== "packages/core/src/errors.ts")
        )
          offenders.push(`${f}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  it("gives each error class a stable code of its own, and a name from the class", () => {
    type Ctor = new (m: string, o?: object) => errors.RetraceError;
    const classes = (Object.values(errors) as unknown[]).filter(
      (v): v is Ctor => typeof v === "function" && v.prototype instanceof errors.RetraceError,
    );
    expect(classes.length).toBeGreaterThanOrEqual(10);
    const codes = new Map<string, string>();
    for (const C of classes) {
      if (C === (errors.ControlSignal as unknown)) continue; // abstract
      const e = new C("x", { desyncs: 1, timeoutMs: 1 });
      expect(e.code, C.name).toMatch(/^[A-Z_]+$/);
      expect(e.name).toBe(C.name);
      expect(codes.has(e.code), `${C.name} repeats ${codes.get(e.code)}'s code`).toBe(false);
      codes.set(e.code, C.name);
    }
    expect(new ActionFormatError("x", { kind: "empty" }).code).toBe("ACTION_FORMAT");
    expect(new errors.ConfigError("x").code).toBe("CONFIG");
  });

  it("documents every code in docs/reliability.md", () => {
    const doc = readFileSync(join(ROOT, "docs/reliability.md"), "utf8");
    const source = readFileSync(join(ROOT, "packages/core/src/errors.ts"), "utf8");
    const union = source.match(/export type RetraceErrorCode =([^;]+);/)![1];
    const codes = [...union.matchAll(/"([A-Z_]+)"/g)].map((m) => m[1]);
    expect(codes.length).toBeGreaterThanOrEqual(10);
    for (const c of codes) expect(doc, c).toContain(`| \`${c}\``);
  });

  it("has no exported class nobody throws (BudgetExhaustedError is gone)", () => {
    expect("BudgetExhaustedError" in errors).toBe(false);
  });
});
