/**
 * Derived-blob memos (BlobStore.derived/remember): N workers sharing one blob store compute each
 * derived blob (a SimDesk screen's PNG from its SVG) once. On the filesystem store, and on the
 * PostgreSQL store across two workers with separate local caches (a real PostgreSQL: CI's or a
 * private throwaway cluster).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { sha256Hex } from "../../../packages/core/src/hash.ts";
import { PgBlobStore } from "../../../packages/stores/src/postgres/blob-store.ts";
import { connectPostgres, type PgHandle } from "../../../packages/stores/src/postgres/connect.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import { pngRenderFn } from "../../../packages/simdesk/src/render.ts";
import { servicesAvailable, testServices } from "../../helpers/services.ts";

const tmp = (p: string) => mkdtempSync(join(tmpdir(), p));
const KEY = sha256Hex("an input");

describe("derived blobs on the filesystem", () => {
  it("remembers a derived blob for every store on the same folder, and validates names", async () => {
    const dir = tmp("derived-fs-");
    const a = new BlobStore({ dir });
    const b = new BlobStore({ dir });
    expect(await b.derived("fn-v1", KEY)).toBeUndefined();
    const ref = await a.put(Buffer.from("output"));
    await a.remember("fn-v1", KEY, ref);
    expect(await b.derived("fn-v1", KEY)).toBe(ref);
    expect(await b.derived("fn-v2", KEY)).toBeUndefined();
    await expect(a.derived("../x", KEY)).rejects.toThrow(ConfigError);
    await expect(a.remember("fn-v1", "nothex", ref)).rejects.toThrow(/must be 64 hex chars/);
  });

  it("lets a second SimDesk on the same store reuse the first one's render instead of rasterising again", async () => {
    const dir = tmp("derived-desk-");
    const task = getSimDeskTask("files-rename-folder");
    const first = createSimDesk({ blobs: new BlobStore({ dir }) });
    const o1 = await first.reset(task);
    const shared = new BlobStore({ dir });
    // Point the memo of every screen at a marker blob: a desk that consults the memo returns it.
    const marker = await shared.put(Buffer.from("marker"));
    const second = createSimDesk({ blobs: shared });
    const o2 = await second.reset(task);
    expect(o2.screenshot).toBe(o1.screenshot); // reused: same PNG ref without a render of its own
    const svgKeys = (await import("node:fs"))
      .readdirSync(join(dir, "derived", await pngRenderFn()), { recursive: true })
      .filter((f) => String(f).length === 67);
    expect(svgKeys.length).toBeGreaterThan(0);
    for (const f of svgKeys) await shared.remember(await pngRenderFn(), String(f).slice(3), marker);
    const third = createSimDesk({ blobs: new BlobStore({ dir }) });
    expect((await third.reset(task)).screenshot).toBe(marker);
    await Promise.all([first.close(), second.close(), third.close()]);
  });
});

const svc = servicesAvailable("the PostgreSQL derived-blob test");
describe.runIf(svc.run)("derived blobs in PostgreSQL", () => {
  let services: Awaited<ReturnType<typeof testServices>>;
  let pg: PgHandle;
  beforeAll(async () => {
    svc.assert();
    services = await testServices();
    pg = await connectPostgres(services.postgresUrl);
  }, 120_000);
  afterAll(async () => {
    await pg?.close();
    services?.stop();
  });

  it("shares a memo between workers with separate local caches; the blob is there before the memo", async () => {
    const fn = `test-fn-${Date.now().toString(36)}`;
    const a = new PgBlobStore({ dir: tmp("derived-pg-a-"), pg });
    const b = new PgBlobStore({ dir: tmp("derived-pg-b-"), pg });
    expect(await b.derived(fn, KEY)).toBeUndefined();
    const bytes = Buffer.from(`output ${fn}`);
    const ref = a.putSync(bytes); // background upload: remember() must wait for it
    await a.remember(fn, KEY, ref);
    expect(await b.derived(fn, KEY)).toBe(ref);
    expect((await b.get(ref)).equals(bytes)).toBe(true);
    // first writer wins
    const other = await a.put(Buffer.from(`other ${fn}`));
    await b.remember(fn, KEY, other);
    const c = new PgBlobStore({ dir: tmp("derived-pg-c-"), pg });
    expect(await c.derived(fn, KEY)).toBe(ref);
  });
});
