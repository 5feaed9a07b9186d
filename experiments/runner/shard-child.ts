/**
 * Entry point of a process worker (see shards.ts): runs the requested phase's shard of an
 * experiment and reports back over IPC. Exits when the parent disconnects.
 */
import { ConfigError, describeError } from "@retrace-cua/core/errors";
import { runExperiment } from "./experiment.ts";
import type { ExperimentRuntime } from "./runtime.ts";
import { ShardDone, type ClaimReply, type ShardMessage, type ShardRequest } from "./shards.ts";

// The parent gone (killed, crashed) is a normal end for a child: exit quietly, no EPIPE stack trace.
const quietExit = () => process.exit(0);
const isGone = (err: unknown) =>
  /EPIPE|ERR_IPC_CHANNEL_CLOSED|ERR_IPC_DISCONNECTED|ECONNRESET/.test(
    `${(err as NodeJS.ErrnoException)?.code ?? ""} ${(err as Error)?.message ?? ""}`,
  );
const send = (m: ShardMessage) => {
  if (!process.connected) return quietExit();
  process.send?.(m, undefined, {}, (err) => err && quietExit());
};
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (err) => (isGone(err) ? quietExit() : undefined));
process.on("uncaughtException", (err) => {
  if (isGone(err)) quietExit();
  process.stderr.write(`retrace worker process: ${describeError(err)}\n`);
  process.exit(1);
});
const runtimes = new Map<string, ExperimentRuntime>();
const claims = new Map<number, (granted: boolean) => void>();
let claimId = 0;
const claim = (key: string) =>
  new Promise<boolean>((resolve) => {
    const id = ++claimId;
    claims.set(id, resolve);
    send({ type: "claim", id, key });
  });

process.on("disconnect", quietExit);
process.on("message", async (req: ShardRequest | ClaimReply) => {
  if ("type" in req) {
    claims.get(req.id)?.(req.granted);
    claims.delete(req.id);
    return;
  }
  try {
    const key = JSON.stringify(req.runtime);
    let runtime = runtimes.get(key);
    if (!runtime) {
      const mod = (await import(req.runtime.module)) as Record<string, (...a: unknown[]) => ExperimentRuntime>;
      runtime = mod[req.runtime.exportName](...(req.runtime.args ?? []));
      runtimes.set(key, runtime);
    }
    await runExperiment(req.config, runtime, {
      out: req.out,
      seedBase: req.seedBase,
      resume: true,
      ...(req.checkpoint ? { checkpoint: req.checkpoint } : {}),
      ...(req.blobsDir ? { blobsDir: req.blobsDir } : {}),
      ...(req.osworldFiles === false ? { osworldFiles: false } : {}),
      ...(req.episodeRecords ? { episodeRecords: req.episodeRecords } : {}),
      shard: {
        phase: req.phase,
        shard: req.shard,
        shards: req.shards,
        onEpisode: (status, success) => send({ type: "episode", status, success }),
        claim,
      },
    });
    send({ type: "error", message: `phase "${req.phase}" was not reached`, config: false });
  } catch (err) {
    if (err instanceof ShardDone) send({ type: "done" });
    else
      send({
        type: "error",
        message: err instanceof ConfigError ? err.message : describeError(err),
        config: err instanceof ConfigError,
      });
  }
});
