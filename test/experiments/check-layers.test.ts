/**
 * npm run lint:layers reads the workspace's package boundaries (experiments/scripts/check-layers.ts):
 * run on a small workspace of its own, it passes a clean one and names each broken rule.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = join(import.meta.dirname, "../../experiments/scripts/check-layers.ts");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function workspace(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "retrace-layers-"));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
const pkg = (name: string, deps: Record<string, string> = {}, peers: Record<string, string> = {}) =>
  JSON.stringify({ name, dependencies: deps, peerDependencies: peers });
function check(root: string) {
  const r = spawnSync(process.execPath, ["--import", "tsx", SCRIPT], {
    env: { ...process.env, RETRACE_LAYERS_ROOT: root },
    encoding: "utf8",
  });
  return { code: r.status, out: r.stdout + r.stderr };
}

const CLEAN = {
  "package.json": JSON.stringify({ name: "ws", private: true, devDependencies: {} }),
  "packages/core/package.json": pkg("@retrace-cua/core", { zod: "4" }),
  "packages/core/src/index.ts": 'export { a } from "./a.ts";\n',
  "packages/core/src/a.ts": 'import { z } from "zod";\nexport const a = z.string();\n',
  "packages/graphs/package.json": pkg("@retrace-cua/graphs", { "@retrace-cua/core": "0.1.0" }),
  "packages/graphs/src/index.ts": 'export { b } from "./b.ts";\n',
  "packages/graphs/src/b.ts": 'import { a } from "@retrace-cua/core/a";\nexport const b = a;\n',
  "experiments/package.json": pkg("@retrace-cua/experiments", { "@retrace-cua/graphs": "0.1.0" }),
  "experiments/index.ts": 'export { b } from "@retrace-cua/graphs";\n',
};

describe("the layering check", () => {
  it("passes a workspace whose packages import only what they depend on, downwards", () => {
    const r = check(workspace(CLEAN));
    expect(r.out).toContain("layers ok: 3 packages");
    expect(r.code).toBe(0);
  });

  it("names an undeclared package, a missing module, an upward dependency, an escaping relative import, a vendor SDK in core and export *", () => {
    const r = check(
      workspace({
        ...CLEAN,
        "packages/core/package.json": pkg(
          "@retrace-cua/core",
          { zod: "4", "@retrace-cua/graphs": "0.1.0" },
          { pg: "8" },
        ),
        "packages/core/src/index.ts": 'export * from "./a.ts";\n',
        "packages/core/src/a.ts": 'import { z } from "zod";\nimport pg from "pg";\nexport const a = [z, pg];\n',
        "packages/graphs/src/b.ts":
          'import { a } from "@retrace-cua/core/nope";\nimport { c } from "../../core/src/a.ts";\nimport { d } from "@retrace-cua/experiments/x";\nimport y from "yaml";\nexport const b = [a, c, d, y];\n',
      }),
    );
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      "@retrace-cua/core depends on @retrace-cua/graphs: a package may depend only on lower layers",
    );
    expect(r.out).toContain('packages/core/src/a.ts: vendor SDK "pg" may only be imported by an adapter package');
    expect(r.out).toContain('packages/core/src/index.ts: entry uses "export *"');
    expect(r.out).toContain("packages/graphs/src/b.ts: @retrace-cua/core/nope: no module nope.ts in packages/core/src");
    expect(r.out).toContain("packages/graphs/src/b.ts: ../../core/src/a.ts leaves @retrace-cua/graphs");
    expect(r.out).toContain("imports @retrace-cua/experiments, which is not in @retrace-cua/graphs's dependencies");
    expect(r.out).toContain(
      "imports yaml, which is in neither dependencies nor peerDependencies of @retrace-cua/graphs",
    );
  });
});
