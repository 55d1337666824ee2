// Robust statistics for cost spikes and cohort comparison. Pure; inputs are never mutated.

/** Middle value of the sample (mean of the two middle values for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/**
 * The q-quantile (0 ≤ q ≤ 1) by linear interpolation between closest ranks: with the sorted
 * sample x[0..n-1], h = (n − 1)·q, result = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
 * This is Hyndman & Fan type 7, the default of R and NumPy, and what ClickHouse's
 * `quantileExactInclusive` computes. NaN when the sample is empty.
 */
export function quantile(values: readonly number[], q: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError('quantile q must be within [0, 1]');
  if (values.length === 0) return NaN;
  return quantileOfSorted(sortNumbers(values), q);
}

/** Like `quantile` for a sample that is already sorted ascending (saves the sort). */
export function quantileOfSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

export function sortNumbers(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Median absolute deviation from the median (unscaled); NaN when empty. */
export function mad(values: readonly number[]): number {
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m)));
}

export interface RobustCenter {
  median: number;
  /** Median absolute deviation (unscaled). */
  mad: number;
  /** Mean absolute deviation from the median, the fallback spread when MAD is 0. */
  mean_abs_dev: number;
}

export function robustCenter(values: readonly number[]): RobustCenter {
  const m = median(values);
  const deviations = values.map((v) => Math.abs(v - m));
  const meanAbsDev = deviations.length ? deviations.reduce((a, b) => a + b, 0) / deviations.length : NaN;
  return { median: m, mad: median(deviations), mean_abs_dev: meanAbsDev };
}

/**
 * Robust z-score z = 0.6745·(x − median)/MAD (Iglewicz & Hoaglin). When MAD is 0 (more than half
 * the sample is equal) the mean absolute deviation stands in: z = (x − median)/(1.253314·MeanAD),
 * 1.253314 ≈ √(π/2) making both estimate the standard deviation of a normal sample. When both are
 * 0 (every value equal) z is 0 at the median and ±Infinity elsewhere.
 */
export function robustZ(x: number, center: RobustCenter): number {
  const diff = x - center.median;
  if (center.mad > 0) return (0.6745 * diff) / center.mad;
  if (center.mean_abs_dev > 0) return diff / (1.253314 * center.mean_abs_dev);
  if (diff === 0) return 0;
  return diff > 0 ? Infinity : -Infinity;
}

export interface Interval {
  low: number;
  high: number;
}

/** z for a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;

/**
 * Wilson score interval for `successes` out of `n` (default 95%). With n = 0 nothing is known
 * and the interval is [0, 1].
 */
export function wilsonInterval(successes: number, n: number, z: number = Z_95): Interval {
  if (n <= 0) return { low: 0, high: 1 };
  if (successes < 0 || successes > n) throw new RangeError('successes must be within [0, n]');
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface TwoProportionTest {
  /** p2 − p1 (candidate minus baseline when called that way). */
  difference: number;
  /** Pooled z statistic; 0 when it cannot be computed (empty side or no variance). */
  z: number;
  /** Two-sided p-value; 1 when z cannot be computed. */
  p_value: number;
}

/** Pooled two-proportion z-test of s1/n1 against s2/n2. */
export function twoProportionZTest(s1: number, n1: number, s2: number, n2: number): TwoProportionTest {
  if (n1 <= 0 || n2 <= 0) return { difference: NaN, z: 0, p_value: 1 };
  const p1 = s1 / n1;
  const p2 = s2 / n2;
  const pooled = (s1 + s2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (se === 0) return { difference: p2 - p1, z: 0, p_value: 1 };
  const z = (p2 - p1) / se;
  return { difference: p2 - p1, z, p_value: Math.min(1, erfc(Math.abs(z) / Math.SQRT2)) };
}

/** Standard normal cumulative distribution. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** Complementary error function, Chebyshev fit (Numerical Recipes erfcc), relative error < 1.2e-7. */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/**
 * The smallest and largest of `values` ([Infinity, -Infinity] when empty), in one pass: unlike
 * Math.min(...values), it holds for arrays of any length (spreading 100,000 values overflows the
 * call stack).
 */
export function extent(values: Iterable<number>): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}
