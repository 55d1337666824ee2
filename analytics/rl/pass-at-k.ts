// pass@k and pass^k of a task from n attempts of which c solved it. Pure.
//
// pass@k (at least one of k attempts solves the task) uses the unbiased estimator
// 1 − C(n−c, k) / C(n, k), computed as the product 1 − ∏_{i=n−c+1..n} (1 − k/i), which never
// forms a binomial coefficient (no overflow, no cancellation of huge numbers).
// pass^k (all k of k attempts solve it) is C(c, k) / C(n, k) = ∏_{i=0..k−1} (c − i) / (n − i).
// Both draw k attempts without replacement from the n seen, so they need n ≥ k: with fewer
// attempts than k there is no unbiased estimate and both return null (shown as "—").

function check(n: number, c: number, k: number): void {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 0 || c < 0 || c > n || k < 1) {
    throw new RangeError(`pass@k needs integers 0 ≤ c ≤ n and k ≥ 1 (got n=${n}, c=${c}, k=${k})`);
  }
}

/** Unbiased pass@k; null when n < k. */
export function passAtK(n: number, c: number, k: number): number | null {
  check(n, c, k);
  if (n < k) return null;
  if (n - c < k) return 1; // every draw of k contains a solved attempt
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - k / i;
  return 1 - miss;
}

/** pass^k: the probability that k attempts drawn from the n all solve the task; null when n < k. */
export function passHatK(n: number, c: number, k: number): number | null {
  check(n, c, k);
  if (n < k) return null;
  if (c < k) return 0;
  let p = 1;
  for (let i = 0; i < k; i++) p *= (c - i) / (n - i);
  return p;
}

/** The mean of an estimator over tasks, skipping tasks where it is undefined; null when none has it. */
export function meanOver(tasks: ReadonlyArray<{ n: number; c: number; weight?: number }>, k: number, f: typeof passAtK): number | null {
  let sum = 0;
  let count = 0;
  for (const t of tasks) {
    const v = f(t.n, t.c, k);
    if (v === null) continue;
    const w = t.weight ?? 1;
    sum += v * w;
    count += w;
  }
  return count ? sum / count : null;
}
