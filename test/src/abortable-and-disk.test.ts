/**
 * Issue 31: a user-supplied function that never answers ends with the episode's signal
 * (packages/core/src/abortable.ts), and a full disk is one line naming the file with no temporary file left
 * (packages/core/src/store/write-file.ts). The disk-full case writes into a real 64 KiB tmpfs (needs root to
 * mount; skipped, and said so, elsewhere).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { untilAborted } from "../../packages/core/src/abortable.ts";
import { writeFileAtomic, writeTextAtomic } from "../../packages/core/src/store/write-file.ts";
import { BlobStore } from "../../packages/core/src/blob-store.ts";

describe("user functions under the episode's signal", () => {
  it("a function that never resolves ends when the signal aborts, naming what was waited for", async () => {
    const never = new Promise<number>(() => undefined);
    const t0 = Date.now();
    await expect(untilAborted(never, AbortSignal.timeout(150), "the restore routine")).rejects.toThrow(
      /^the restore routine did not finish before the episode was stopped/,
    );
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it("an already aborted signal rejects at once; an answer before the abort is returned; no listener is left", async () => {
    const c = new AbortController();
    c.abort("stop");
    await expect(untilAborted(Promise.resolve(1), c.signal, "the checker")).rejects.toThrow(
      /the checker did not finish .*\(stop\)/,
    );
    const live = new AbortController();
    expect(await untilAborted(Promise.resolve(7), live.signal, "x")).toBe(7);
    await expect(untilAborted(Promise.reject(new Error("boom")), live.signal, "x")).rejects.toThrow("boom");
    expect(await untilAborted(Promise.resolve(3), undefined, "x")).toBe(3);
  });
});

const isRoot = process.getuid?.() === 0;

describe.runIf(isRoot)("a full disk (a 64 KiB tmpfs)", () => {
  it("is one line naming the file, and leaves no *.tmp file (blob store and atomic writer)", async () => {
    const mnt = mkdtempSync(join(tmpdir(), "retrace-enospc-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt]);
    try {
      expect(() => writeTextAtomic(join(mnt, "results.jsonl"), "x".repeat(1_000_000))).toThrow(
        /^cannot write .*results\.jsonl: the disk is full \(ENOSPC\); free some space, then run the same command with --resume/,
      );
      expect(() => writeFileAtomic(join(mnt, "pack.tsv.gz"), Buffer.alloc(500_000, 1))).toThrow(
        /pack\.tsv\.gz: the disk is full/,
      );
      const blobs = new BlobStore({ dir: join(mnt, "blobs") });
      await expect(blobs.put(Buffer.alloc(500_000, 2))).rejects.toThrow(
        /^cannot write .*\.png: the disk is full \(ENOSPC\)/,
      );
      const left = readdirSync(mnt, { recursive: true }).map(String);
      expect(left.filter((f) => f.endsWith(".tmp"))).toEqual([]);
    } finally {
      execFileSync("umount", [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });
});

describe("concurrent writers", () => {
  it("never share a temporary file name (two --resume packing at once raced on fixed names)", () => {
    const d = mkdtempSync(join(tmpdir(), "retrace-tmpnames-"));
    mkdirSync(join(d, "x"));
    try {
      for (let i = 0; i < 50; i++) writeFileAtomic(join(d, "x", "trajectories.jsonl.gz"), Buffer.from(String(i)));
      expect(readdirSync(join(d, "x"))).toEqual(["trajectories.jsonl.gz"]);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
