/**
 * The PostgreSQL retry rule (packages/stores/src/postgres/connect.ts): which errors are a lost or
 * refused connection, bounded backoff on them, any other error at once, and one clear error naming
 * the server and RETRACE_PG_RETRY_MS after the budget. The restart itself, against a real server,
 * is test/experiments/checkpoint-postgres-restart.int.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ConfigError, ServiceUnavailableError } from "../../../packages/core/src/errors.ts";
import { pgRetryMs } from "../../../packages/core/src/settings.ts";
import { isTransientPgError, withPgRetry } from "../../../packages/stores/src/postgres/connect.ts";

const WHERE = "postgres://postgres@127.0.0.1:5432/db";
const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe("isTransientPgError", () => {
  it("takes refused, reset and terminated connections, admin shutdown and start-up for lost connections", () => {
    for (const e of [
      pgError("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"),
      pgError("read ECONNRESET", "ECONNRESET"),
      pgError("terminating connection due to administrator command", "57P01"),
      pgError("the database system is starting up", "57P03"),
      pgError("Connection terminated unexpectedly"),
      pgError("Client has encountered a connection error and is not queryable"),
      pgError("Client was closed and is not queryable"),
    ])
      expect(isTransientPgError(e), e.message).toBe(true);
  });
  it("does not retry a bad query or a constraint violation", () => {
    expect(isTransientPgError(pgError('syntax error at or near "SELEC"', "42601"))).toBe(false);
    expect(isTransientPgError(pgError("duplicate key value violates unique constraint", "23505"))).toBe(false);
  });
});

describe("withPgRetry", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("retries a lost connection with growing waits and returns the first success", async () => {
    const fn = vi
      .fn()
      .mockRejectedValueOnce(pgError("Connection terminated unexpectedly"))
      .mockRejectedValueOnce(pgError("x", "57P03"))
      .mockResolvedValue("ok");
    const p = withPgRetry(WHERE, fn, 10_000);
    await vi.advanceTimersByTimeAsync(99);
    expect(fn).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1); // 100 ms
    expect(fn).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(199);
    expect(fn).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1); // then 200 ms
    await expect(p).resolves.toBe("ok");
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it("throws any other error at once", async () => {
    const fn = vi.fn().mockRejectedValue(pgError("syntax error", "42601"));
    await expect(withPgRetry(WHERE, fn, 10_000)).rejects.toThrow("syntax error");
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("after the budget, one error naming the server, the last error and RETRACE_PG_RETRY_MS", async () => {
    const fn = vi.fn().mockRejectedValue(pgError("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"));
    const p = withPgRetry(WHERE, fn, 5_000);
    const caught = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(6_000);
    const err = await caught;
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect((err as Error).message).toBe(
      `PostgreSQL at ${WHERE} stayed unreachable for 5 s (Error: connect ECONNREFUSED 127.0.0.1:5432); start it, or give it longer with RETRACE_PG_RETRY_MS (now 5000 ms)`,
    );
    // 100, 200, 400, 800, 1600, then 1900 ms (what was left of the budget): 7 calls, no more
    expect(fn).toHaveBeenCalledTimes(7);
  });
});

describe("RETRACE_PG_RETRY_MS", () => {
  it("defaults to 60 s, takes whole milliseconds (0 turns retries off), and refuses anything else with one line", () => {
    expect(pgRetryMs({})).toBe(60_000);
    expect(pgRetryMs({ RETRACE_PG_RETRY_MS: "0" })).toBe(0);
    expect(pgRetryMs({ RETRACE_PG_RETRY_MS: "300000" })).toBe(300_000);
    for (const bad of ["", "abc", "1e3", "-1", "0x10", "1.5", "86400001"]) {
      expect(() => pgRetryMs({ RETRACE_PG_RETRY_MS: bad }), bad).toThrow(ConfigError);
      expect(() => pgRetryMs({ RETRACE_PG_RETRY_MS: bad })).toThrow(
        /^RETRACE_PG_RETRY_MS: expected a whole number of milliseconds from 0 to 86400000 \(one day\), got ".*"( \(empty\))?$/,
      );
    }
  });
});
