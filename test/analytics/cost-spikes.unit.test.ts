import { describe, expect, it } from 'vitest';
import { findContextBlowups, findHourlySpendSpikes, findRunCostSpikes, type RunCost } from '../../analytics/cost-spikes.js';

const cohort = (name: string, costs: number[]): RunCost[] =>
  costs.map((cost_usd, i) => ({ run_id: `${name}-${String(i).padStart(2, '0')}`, cohort: name, cost_usd }));

// 19 ordinary runs: median 1.0, MAD 0.1
const ordinary = [0.7, 0.8, 0.8, 0.9, 0.9, 0.9, 0.95, 1.0, 1.0, 1.0, 1.0, 1.0, 1.05, 1.1, 1.1, 1.1, 1.2, 1.2, 1.3];

describe('run cost spikes', () => {
  it('flags a run with robust z above 3.5 in a cohort of 20', () => {
    const spikes = findRunCostSpikes(cohort('a', [...ordinary, 5]));
    expect(spikes).toHaveLength(1);
    expect(spikes[0]).toMatchObject({ run_id: 'a-19', cohort_median: 1, cohort_runs: 20, factor: 5 });
    expect(spikes[0].z).toBeCloseTo((0.6745 * 4) / 0.1, 6);
  });

  it('needs 20 runs in the cohort', () => {
    expect(findRunCostSpikes(cohort('a', [...ordinary.slice(1), 5]))).toEqual([]);
  });

  it('does not flag a run just under the threshold, nor cheap outliers', () => {
    // z = 0.6745 · (x − 1) / 0.1 = 3.5 at x ≈ 1.5189
    expect(findRunCostSpikes(cohort('a', [...ordinary, 1.5]))).toEqual([]);
    expect(findRunCostSpikes(cohort('a', [...ordinary, 0]))).toEqual([]);
  });

  it('judges each cohort on its own', () => {
    const spikes = findRunCostSpikes([...cohort('cheap', [...ordinary, 5]), ...cohort('dear', ordinary.concat(1).map((c) => c * 5))]);
    expect(spikes.map((s) => s.cohort)).toEqual(['cheap']);
  });

  it('copes with a cohort where most runs cost the same (MAD 0)', () => {
    const same = Array.from({ length: 19 }, () => 1);
    expect(findRunCostSpikes(cohort('a', [...same, 3])).map((s) => s.run_id)).toEqual(['a-19']);
    expect(findRunCostSpikes(cohort('a', [...same, 1]))).toEqual([]);
  });
});

describe('context blow-ups', () => {
  const steps = (cohortName: string, tokens: number[]) =>
    tokens.map((input_tokens, i) => ({ run_id: `r${Math.floor(i / 10)}`, step: i % 10, cohort: cohortName, input_tokens }));

  it('flags steps above the cohort p99 times the factor', () => {
    const normal = Array.from({ length: 199 }, (_, i) => 4000 + (i % 50) * 40); // up to 5960
    const found = findContextBlowups(steps('c', [...normal, 60_000]));
    expect(found).toHaveLength(1);
    expect(found[0].input_tokens).toBe(60_000);
    expect(found[0].factor).toBeGreaterThan(2);
  });

  it('does not flag the tail of a normal distribution or small cohorts', () => {
    const normal = Array.from({ length: 200 }, (_, i) => 4000 + (i % 50) * 40);
    expect(findContextBlowups(steps('c', normal))).toEqual([]);
    expect(findContextBlowups(steps('c', [1000, 1000, 90_000]))).toEqual([]);
  });
});

describe('hourly spend spikes', () => {
  const H = 3_600_000;
  const t0 = Date.parse('2026-11-30T00:00:00Z');

  it('flags an hour above 3× the trailing mean, counting empty hours as 0', () => {
    const hours = Array.from({ length: 10 }, (_, i) => ({ hour: t0 + i * H + 123, cost_usd: 2 }));
    hours.push({ hour: t0 + 10 * H, cost_usd: 6.5 });
    const spikes = findHourlySpendSpikes(hours);
    expect(spikes).toEqual([{ hour: t0 + 10 * H, cost_usd: 6.5, baseline_usd: 2, factor: 3.25 }]);
    expect(findHourlySpendSpikes([...hours.slice(0, 10), { hour: t0 + 10 * H, cost_usd: 6 }])).toEqual([]);
  });

  it('needs enough history and a baseline above 0', () => {
    const young = [0, 1, 2, 3, 4].map((i) => ({ hour: t0 + i * H, cost_usd: i === 4 ? 50 : 1 }));
    expect(findHourlySpendSpikes(young)).toEqual([]);
    const gap = [{ hour: t0, cost_usd: 1 }, { hour: t0 + 40 * H, cost_usd: 5 }];
    expect(findHourlySpendSpikes(gap)).toEqual([]);
  });

  it('sums entries of the same hour', () => {
    const hours = Array.from({ length: 8 }, (_, i) => ({ hour: t0 + i * H, cost_usd: 1 }));
    hours.push({ hour: t0 + 8 * H, cost_usd: 2 }, { hour: t0 + 8 * H + 60_000, cost_usd: 2 });
    expect(findHourlySpendSpikes(hours)[0]).toMatchObject({ cost_usd: 4, factor: 4 });
  });
});
