// Token buckets per key (in-process): `ratePerSecond` tokens flow in, up to `burst` held. Pure:
// the clock is passed in.

export interface BucketSettings {
  ratePerSecond: number;
  burst: number;
}

export type Take = { ok: true } | { ok: false; retryAfterSeconds: number };

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly settings: BucketSettings,
    /** Buckets kept at most; the least recently used is dropped (it would be full again anyway). */
    private readonly maxKeys = 10_000,
  ) {}

  /** Takes one token for `key` at time `nowMs`, or says how long until one is there. */
  take(key: string, nowMs: number): Take {
    const { ratePerSecond, burst } = this.settings;
    const b = this.buckets.get(key) ?? { tokens: burst, at: nowMs };
    this.buckets.delete(key);
    b.tokens = Math.min(burst, b.tokens + (Math.max(0, nowMs - b.at) / 1000) * ratePerSecond);
    b.at = nowMs;
    this.buckets.set(key, b);
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / ratePerSecond)) };
  }
}
