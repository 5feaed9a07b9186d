/**
 * Redis and PostgreSQL for the distributed-run tests. CI (`.ci/run` sources `.ci/services.sh`)
 * exports RETRACE_TEST_REDIS_URL and RETRACE_TEST_POSTGRES_URL; without them, a machine that has
 * `redis-server` and PostgreSQL's binaries gets private throwaway servers started here. Missing
 * binaries skip the tests with one line outside CI and fail them in CI.
 */
import { runtimeSettings } from "../../packages/core/src/settings.ts";
import { hasRedis, pgBin, startPrivatePostgres, startPrivateRedis } from "../../packages/testing/src/local-services.ts";

export {
  startPrivatePostgres,
  startPrivateRedis,
  freePort,
  type PrivatePostgres,
} from "../../packages/testing/src/local-services.ts";

/** Whether the service tests run here (and why not). */
export function servicesAvailable(what: string): { run: boolean; assert(): void } {
  const env = !!(process.env.RETRACE_TEST_REDIS_URL && process.env.RETRACE_TEST_POSTGRES_URL);
  const missing = env ? [] : [...(hasRedis() ? [] : ["redis-server"]), ...(pgBin() ? [] : ["postgresql"])];
  const ci = runtimeSettings().ci;
  if (missing.length && !ci)
    process.stderr.write(
      `skipping ${what}: missing ${missing.join(", ")} (install: apt-get install redis-server postgresql, or source .ci/services.sh)\n`,
    );
  return {
    run: missing.length === 0 || ci,
    assert() {
      if (missing.length)
        throw new Error(`${what} needs ${missing.join(", ")}: source .ci/services.sh (it installs and starts them)`);
    },
  };
}

/** The shared test services: CI's (from the environment) or private ones started now. */
export async function testServices(): Promise<{ redisUrl: string; postgresUrl: string; stop(): void }> {
  const r = process.env.RETRACE_TEST_REDIS_URL;
  const p = process.env.RETRACE_TEST_POSTGRES_URL;
  if (r && p) return { redisUrl: r, postgresUrl: p, stop: () => {} };
  const redis = await startPrivateRedis();
  const pg = await startPrivatePostgres();
  return {
    redisUrl: redis.url,
    postgresUrl: pg.url,
    stop() {
      redis.stop();
      pg.stop();
    },
  };
}
