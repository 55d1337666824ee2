import { describe, expect, it } from 'vitest';
import {
  mad,
  median,
  normalCdf,
  quantile,
  robustCenter,
  robustZ,
  twoProportionZTest,
  wilsonInterval,
} from '../../analytics/robust-stats.js';

describe('median, MAD, quantile', () => {
  it('computes medians of odd and even samples without mutating them', () => {
    const xs = [5, 1, 3];
    expect(median(xs)).toBe(3);
    expect(xs).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('computes the median absolute deviation', () => {
    // median 2; deviations 1 1 0 0 2 4 7 -> median 1
    expect(mad([1, 1, 2, 2, 4, 6, 9])).toBe(1);
  });

  it('interpolates quantiles linearly between closest ranks (type 7)', () => {
    const xs = [1, 2, 3, 4];
    expect(quantile(xs, 0)).toBe(1);
    expect(quantile(xs, 1)).toBe(4);
    expect(quantile(xs, 0.5)).toBe(2.5);
    expect(quantile(xs, 0.25)).toBeCloseTo(1.75, 12); // h = 0.75
    expect(quantile([10], 0.99)).toBe(10);
    const hundred = Array.from({ length: 101 }, (_, i) => i);
    expect(quantile(hundred, 0.99)).toBeCloseTo(99, 12);
    expect(() => quantile(xs, 1.5)).toThrow(RangeError);
  });
});

describe('robust z', () => {
  it('is 0.6745·(x − median)/MAD', () => {
    const c = robustCenter([1, 1, 2, 2, 4, 6, 9]);
    expect(c).toMatchObject({ median: 2, mad: 1 });
    expect(robustZ(9, c)).toBeCloseTo(0.6745 * 7, 12);
    expect(robustZ(2, c)).toBe(0);
  });

  it('falls back to the mean absolute deviation when MAD is 0', () => {
    const c = robustCenter([1, 1, 1, 1, 1, 1, 8]);
    expect(c.mad).toBe(0);
    expect(c.mean_abs_dev).toBeCloseTo(1, 12);
    expect(robustZ(8, c)).toBeCloseTo(7 / 1.253314, 9);
  });

  it('is infinite away from a constant sample and 0 on it', () => {
    const c = robustCenter([2, 2, 2]);
    expect(robustZ(2, c)).toBe(0);
    expect(robustZ(3, c)).toBe(Infinity);
    expect(robustZ(1, c)).toBe(-Infinity);
  });
});

describe('Wilson interval', () => {
  it('matches the textbook value', () => {
    // 8 of 10, 95%: 0.4902 – 0.9433
    const { low, high } = wilsonInterval(8, 10);
    expect(low).toBeCloseTo(0.4902, 4);
    expect(high).toBeCloseTo(0.9433, 4);
  });

  it('stays within [0, 1] at the extremes and is [0, 1] for no data', () => {
    expect(wilsonInterval(0, 20).low).toBe(0);
    expect(wilsonInterval(20, 20).high).toBe(1);
    expect(wilsonInterval(20, 20).low).toBeCloseTo(0.8389, 4);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

describe('two-proportion z test', () => {
  it('matches a hand computation', () => {
    // 45/100 vs 60/100: pooled 0.525, se = sqrt(0.525·0.475·0.02) = 0.070622, z = 2.1240
    const t = twoProportionZTest(45, 100, 60, 100);
    expect(t.difference).toBeCloseTo(0.15, 12);
    expect(t.z).toBeCloseTo(2.124, 3);
    expect(t.p_value).toBeCloseTo(0.0337, 3);
  });

  it('is symmetric and harmless on degenerate input', () => {
    expect(twoProportionZTest(60, 100, 45, 100).z).toBeCloseTo(-2.124, 3);
    expect(twoProportionZTest(10, 10, 20, 20)).toEqual({ difference: 0, z: 0, p_value: 1 });
    expect(twoProportionZTest(0, 0, 5, 10).p_value).toBe(1);
  });

  it('uses an accurate normal distribution', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-3)).toBeCloseTo(0.0013499, 6);
  });
});
