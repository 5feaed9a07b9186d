/**
 * A process-wide hook that paces requests to model endpoints: every model adapter awaits
 * {@link awaitEndpointSlot} with its base URL before each request. Nothing is installed by
 * default; `retrace worker --max-rps` installs a limiter shared by every worker through Redis
 * (packages/stores/src/queue/redis-rate-limit.ts), so N machines together stay under one endpoint's limit.
 */

/** Resolves when a request to `baseURL` may be sent. */
export type EndpointLimiter = (baseURL: string) => Promise<void>;

let installed: EndpointLimiter | undefined;

/** Install (or with undefined, remove) the process's endpoint limiter. */
export function setEndpointLimiter(limiter: EndpointLimiter | undefined): void {
  installed = limiter;
}

/** Wait for the installed limiter's permission to call `baseURL` (immediate when none is installed). */
export async function awaitEndpointSlot(baseURL: string): Promise<void> {
  if (installed) await installed(baseURL);
}
