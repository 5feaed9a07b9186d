/**
 * @retrace-cua/stores: retrace's PostgreSQL checkpointer and store, and the BullMQ episode queue for distributed runs.
 * Explicit named exports only: the names the other retrace packages import from it.
 */
export type { PgBlobStore } from "./postgres/blob-store.ts";
export { LazyPostgresSaver, createPostgresCheckpointer } from "./postgres/checkpointer.ts";
export { checkPostgresUrl, connectPostgres } from "./postgres/connect.ts";
export type { PgHandle } from "./postgres/connect.ts";
export type { EpisodeFile, PgRunStore } from "./postgres/run-store.ts";
export { DEFAULT_QUEUE, checkRedisReachable, checkRedisUrl, startEpisodeWorker } from "./queue/bullmq/episode-queue.ts";
export type { EpisodeJobData, EpisodeQueue, EpisodeWorkerHandle } from "./queue/bullmq/episode-queue.ts";
export { createRedisEndpointLimiter, parseMaxRps } from "./queue/redis-rate-limit.ts";
