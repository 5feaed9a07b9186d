/**
 * `retrace tune --queue`: a race's rounds run on a BullMQ `retrace worker` (real Redis and
 * PostgreSQL, started here and stopped after) and make the same decisions as the local pool.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify as toYaml } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import type { RaceResult } from "../../../packages/evaluation/src/tune/race-result.ts";
import { retrace, stop, type CliProc } from "../../helpers/cli-procs.ts";
import { servicesAvailable, testServices } from "../../helpers/services.ts";
import { cli } from "../helpers/model-roles.ts";

const services = servicesAvailable("the tune --queue test");
const dir = mkdtempSync(join(tmpdir(), "retrace-tune-queue-"));
const procs: CliProc[] = [];
let stopServices = () => {};
afterAll(async () => {
  await Promise.all(procs.map((p) => stop(p)));
  stopServices();
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(services.run)("retrace tune on BullMQ workers", () => {
  it("runs the race's rounds on a worker and decides as the local pool does", async () => {
    services.assert();
    const s = await testServices();
    stopServices = s.stop;
    const file = join(dir, "tune.yaml");
    writeFileSync(
      file,
      toYaml({
        kind: "tune",
        name: "tune-queue",
        env: { kind: "simdesk", tasks: ["files-rename-folder", "editor-append-notes", "settings-accent-green"] },
        options: { maxForwardSteps: 20 },
        pair: {
          name: "q",
          forward: { kind: "sim", profile: "sloppy" },
          recovery: { kind: "sim", profile: "skilled" },
          detector: { kind: "sim", profile: "decent" },
        },
        space: { "pair.recovery.profile": ["weak", "skilled"] },
        race: { seedsPerRound: 1, maxSeedsPerBatch: 3, maxEpisodes: 50 },
      }),
    );
    const local = await cli("tune", file, "--out", join(dir, "local"), "--workers", "1", "--quiet");
    expect(local.code).toBe(0);
    procs.push(
      retrace([
        "worker",
        "--queue",
        s.redisUrl,
        "--store",
        s.postgresUrl,
        "--queue-name",
        "tune-q",
        "--lock-ms",
        "2000",
        "--work-dir",
        join(dir, "cache"),
      ]),
    );
    const queued = await cli(
      "tune",
      file,
      "--out",
      join(dir, "queued"),
      "--quiet",
      "--queue",
      s.redisUrl,
      "--store",
      s.postgresUrl,
      "--queue-name",
      "tune-q",
    );
    expect(queued.stderr).toBe("");
    expect(queued.code).toBe(0);
    const read = (out: string) => {
      const { decision: _d, ...r } = JSON.parse(readFileSync(join(dir, out, "race.json"), "utf8")) as RaceResult;
      return r;
    };
    // the rounds were distributed runs (queue.json), not local ones
    expect(existsSync(join(dir, "queued", "rounds", "b0-r0", "g0", "queue.json"))).toBe(true);
    expect(existsSync(join(dir, "local", "rounds", "b0-r0", "g0", "queue.json"))).toBe(false);
    expect(read("queued")).toEqual(read("local"));
    expect(read("local").episodes).toBeGreaterThan(0);
  }, 300_000);
});
