/**
 * Issue 31: a key the agent types into SimDesk ends up in no output. The engine redacts typed text
 * (packages/core/src/secrets.ts) before it enters the desk's state, so the state snapshots (simdesk-states/), the
 * screens rendered from the state (.svgz, decompressed here, and PNG) and the accessibility-tree
 * blobs all hold "[redacted]" instead.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createSimDesk } from "../../../../packages/simdesk/src/desk.ts";
import { getSimDeskTask } from "../../../../packages/simdesk/src/tasks/index.ts";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { registerSecret } from "../../../../packages/core/src/secrets.ts";
import { ObservationCodec } from "../../../../packages/graphs/src/stored-observation.ts";

const KEY = "corp-key-7f3a9c2e11d4b8";
let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

const files = (d: string): string[] =>
  readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? files(join(d, n)) : [join(d, n)]));
const text = (f: string) =>
  (f.endsWith(".svgz") || f.endsWith(".gz") ? gunzipSync(readFileSync(f)) : readFileSync(f)).toString("utf8");

describe("a secret the agent types into SimDesk", () => {
  it("is in no state snapshot, screen or accessibility-tree blob; the desk shows [redacted]", async () => {
    registerSecret(KEY);
    root = mkdtempSync(join(tmpdir(), "retrace-typed-secret-"));
    const blobs = new BlobStore({ dir: join(root, "blobs") });
    const desk = createSimDesk({ blobs });
    const task = getSimDeskTask("editor-append-notes");
    await desk.reset(task);
    let obs;
    for (const a of task.plan!)
      obs = (await desk.step(a.type === "TYPING" ? { ...a, text: `key ${KEY}\n` } : a)).observation;
    // an observation with its accessibility tree, stored as the graph stores it
    const stored = new ObservationCodec(blobs).store({
      ...obs!,
      axTree: { role: "editor", name: `typed: key ${KEY}`, children: [] },
    } as never);
    expect(stored.axTreeRef).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(desk.getState())).toContain("key [redacted]");
    const all = files(root);
    expect(all.some((f) => f.endsWith(".svgz"))).toBe(true);
    expect(all.some((f) => f.includes("simdesk-states"))).toBe(true);
    expect(all.some((f) => f.includes(`${join("blobs", "ax")}`))).toBe(true);
    for (const f of all) expect(text(f).includes(KEY), f).toBe(false);
    expect(
      all
        .filter((f) => f.endsWith(".svgz"))
        .map(text)
        .join(""),
    ).toContain("[redacted]");
  });
});
