// When to try a failed batch again: exponential backoff with jitter, never sooner than the
// server's Retry-After. Pure.

export interface BackoffOptions {
  /** Delay ceiling of the first retry (doubles each attempt). */
  initialBackoffMs: number;
  /** Largest delay ceiling. */
  maxBackoffMs: number;
}

/** A Retry-After longer than this is capped (a misconfigured server should not stall a client for hours). */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * Delay before retry number `attempt` (0 = the first retry): "equal jitter", a random point in
 * the upper half of min(max, initial * 2^attempt), so clients that failed together spread out
 * while none retries almost at once.
 */
export function backoffDelay(attempt: number, o: BackoffOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(o.maxBackoffMs, o.initialBackoffMs * 2 ** Math.min(attempt, 30));
  return ceiling / 2 + (random() * ceiling) / 2;
}

/** The backoff delay, or the server's Retry-After when that is longer. */
export function retryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  o: BackoffOptions,
  random: () => number = Math.random,
): number {
  return Math.max(backoffDelay(attempt, o, random), Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

/** A Retry-After header (delay in seconds, or an HTTP date) as milliseconds from `now`. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
