import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { buildProgram, main } from "../../experiments/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run the CLI in-process; returns stderr and the exit code it set. */
async function cli(...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  const before = process.exitCode;
  try {
    await main(["node", "retrace", ...args]);
    return { code: Number(process.exitCode ?? 0), stderr };
  } finally {
    spy.mockRestore();
    process.exitCode = before;
  }
}

describe("the retrace CLI", () => {
  it("rejects a bad config with one line naming the field and exit code 2", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "kind: end-to-end\nname: x\npairs:\n  - name: a\n    forward: { kind: sim, profile: 7 }\n");
    const r = await cli("run", file, "--quiet");
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/pairs\.0\.forward\.profile/);
  });
  it("rejects an unknown simulated profile and a bad --workers before anything is written", async () => {
    const file = join(dir, "typo.json");
    writeFileSync(
      file,
      JSON.stringify({
        kind: "end-to-end",
        name: "x",
        env: { kind: "simdesk", limit: 1 },
        seeds: [0],
        pairs: [{ name: "a", forward: { kind: "sim", profile: "carefull" } }],
      }),
    );
    const r = await cli("run", file, "--quiet", "--out", join(dir, "o1"));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/config\.pairs\.0\.forward\.profile: unknown simulated forward profile "carefull"/);
    expect(existsSync(join(dir, "o1"))).toBe(false);
    expect((await cli("run", file, "--workers", "0")).stderr).toMatch(/--workers/);
    expect((await cli("sweep", file, "--param", "freezeWindow")).stderr).toMatch(/--param: expected name=v1,v2/);
  });
  it("documents the shared flags in --help", () => {
    const program = buildProgram();
    for (const name of ["run", "sweep", "demo"]) {
      const h = program.commands.find((c) => c.name() === name)!.helpInformation();
      for (const flag of ["--out", "--workers", "--seed", "--resume", "--quiet"])
        expect(h, `${name} ${flag}`).toContain(flag);
    }
    expect(program.commands.find((c) => c.name() === "report")!.helpInformation()).toContain(
      "Write report.html and its report-files/ folder",
    );
  });
});
