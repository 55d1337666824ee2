// pass@k and pass^k against values computed by hand from binomial coefficients.
import { describe, expect, it } from 'vitest';
import { meanOver, passAtK, passHatK } from '../../analytics/rl/pass-at-k.js';

/** C(n, k) exactly, as a BigInt. */
function binom(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}
const ratio = (a: bigint, b: bigint) => Number((a * 10n ** 15n) / b) / 1e15;

describe('passAtK (unbiased: 1 − C(n−c, k) / C(n, k))', () => {
  it('matches hand-computed values', () => {
    expect(passAtK(5, 2, 2)).toBeCloseTo(1 - 3 / 10, 12); // C(3,2)=3, C(5,2)=10
    expect(passAtK(10, 3, 4)).toBeCloseTo(1 - 35 / 210, 12); // C(7,4)=35, C(10,4)=210
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25, 12); // k = 1 is the solve rate
    expect(passAtK(8, 0, 4)).toBe(0);
    expect(passAtK(8, 8, 4)).toBe(1);
    expect(passAtK(8, 1, 8)).toBe(1); // every draw of 8 from 8 holds the solved one
    expect(passAtK(8, 5, 4)).toBe(1); // n − c = 3 < k
  });

  it('is undefined (null) when there are fewer attempts than k', () => {
    expect(passAtK(3, 1, 4)).toBeNull();
    expect(passAtK(3, 0, 4)).toBeNull();
    expect(passAtK(0, 0, 1)).toBeNull();
    expect(passAtK(4, 4, 8)).toBeNull();
  });

  it('stays accurate where the binomial coefficients overflow a double', () => {
    for (const [n, c, k] of [[200, 100, 50], [1000, 7, 64], [600, 599, 300]]) {
      const exact = 1 - ratio(binom(n - c, k), binom(n, k));
      expect(passAtK(n, c, k)).toBeCloseTo(exact, 10);
    }
  });

  it('rejects impossible counts', () => {
    expect(() => passAtK(3, 4, 1)).toThrow(RangeError);
    expect(() => passAtK(3, 1, 0)).toThrow(RangeError);
    expect(() => passAtK(3.5, 1, 1)).toThrow(RangeError);
  });
});

describe('passHatK (all k of k: C(c, k) / C(n, k))', () => {
  it('matches hand-computed values', () => {
    expect(passHatK(5, 3, 2)).toBeCloseTo(3 / 10, 12);
    expect(passHatK(4, 2, 2)).toBeCloseTo(1 / 6, 12);
    expect(passHatK(4, 4, 4)).toBe(1);
    expect(passHatK(4, 3, 4)).toBe(0);
    expect(passHatK(4, 3, 1)).toBeCloseTo(0.75, 12);
    expect(passHatK(3, 3, 4)).toBeNull();
    expect(passHatK(300, 200, 40)).toBeCloseTo(ratio(binom(200, 40), binom(300, 40)), 12);
  });
});

describe('meanOver', () => {
  it('averages over tasks that have enough attempts, weighted by task count', () => {
    const tasks = [
      { n: 4, c: 4, weight: 2 },
      { n: 4, c: 0 },
      { n: 2, c: 2 }, // fewer than 4 attempts: left out of k = 4
    ];
    expect(meanOver(tasks, 4, passHatK)).toBeCloseTo(2 / 3, 12);
    expect(meanOver(tasks, 1, passAtK)).toBeCloseTo(3 / 4, 12);
    expect(meanOver([{ n: 1, c: 1 }], 4, passAtK)).toBeNull();
  });
});
