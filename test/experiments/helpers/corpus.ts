/**
 * Helpers of the bad-input corpora (test/experiments/bad-input-*.test.ts): run `retrace`
 * in-process capturing what it prints and the exit code it sets, and list a folder's files with
 * their sizes and contents' hashes (what "nothing written, nothing lost or changed" compares).
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { vi } from "vitest";
import { main } from "../../../experiments/cli.ts";

/** Every file and folder under `root`, with each file's size and sha256 (links by their target). */
export function snapshot(root: string): string[] {
  const walk = (d: string): string[] =>
    readdirSync(d)
      .sort()
      .flatMap((n) => {
        const p = join(d, n);
        const s = lstatSync(p);
        if (s.isSymbolicLink()) return [`${p} -> ${readlinkSync(p)}`];
        return s.isDirectory()
          ? [`${p}/`, ...walk(p)]
          : [`${p} ${s.size} ${createHash("sha256").update(readFileSync(p)).digest("hex").slice(0, 16)}`];
      });
  return walk(root);
}

/** Run the CLI in-process; returns stderr, stdout and the exit code it set. */
export async function cli(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  let stderr = "";
  let stdout = "";
  const err = vi
    .spyOn(process.stderr, "write")
    .mockImplementation((c: string | Uint8Array) => ((stderr += String(c)), true));
  const outSpy = vi
    .spyOn(process.stdout, "write")
    .mockImplementation((c: string | Uint8Array) => ((stdout += String(c)), true));
  const before = process.exitCode;
  try {
    await main(["node", "retrace", ...args]);
    return { code: Number(process.exitCode ?? 0), stderr, stdout };
  } finally {
    err.mockRestore();
    outSpy.mockRestore();
    process.exitCode = before;
  }
}

/** The checks every corpus row makes: one `retrace:` line matching `error`, no stack or raw errno. */
export function oneLine(stderr: string): string {
  const lines = stderr.trim().split("\n");
  if (lines.length !== 1) throw new Error(`expected one line on stderr, got ${lines.length}:\n${stderr}`);
  return lines[0];
}
