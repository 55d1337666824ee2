// Delay before retrying a webhook delivery: exponential with "equal jitter" (half fixed, half
// random), so receivers that fail together are not hit again all at once. Pure.

export interface BackoffConfig {
  baseMs: number;
  maxMs: number;
}

/** Delay before attempt `attempt + 1`, after `attempt` (≥ 1) failed; `random` in [0, 1). */
export function retryDelayMs(attempt: number, cfg: BackoffConfig, random: number = Math.random()): number {
  const exp = Math.min(cfg.maxMs, cfg.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + (exp / 2) * random);
}

/** HTTP statuses worth retrying: 408, 425, 429 and 5xx; other 4xx answers will not change. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}
