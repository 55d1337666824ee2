// Pure alert logic: dedup/cooldown/resolution decisions, window verdicts, cost limits of runs,
// retry backoff, rule filters.
import { describe, expect, it } from 'vitest';
import { isRetryableStatus, retryDelayMs } from '../../analytics/alerts/backoff.js';
import { decide, type AlertState } from '../../analytics/alerts/firing-decisions.js';
import { matchesFilters } from '../../analytics/alerts/rule-match.js';
import { costLimit, crosses } from '../../analytics/alerts/cost-limit.js';
import { evaluateCompletionDrop, evaluateSignature, evaluateThreshold } from '../../analytics/alerts/window-evaluation.js';
import { errorSignatureParams } from '../../schemas/alert-rules.js';

describe('decide', () => {
  const firing = (at: number): AlertState => ({ status: 'firing', last_fired_at: at, changed_at: at });
  it('fires an event once per cooldown', () => {
    expect(decide(undefined, 'event', 1000, 60_000, false).action).toBe('fire');
    expect(decide(firing(1000), 'event', 30_000, 60_000, false)).toEqual({ action: 'none', reason: 'cooldown' });
    expect(decide(firing(1000), 'event', 61_000, 60_000, false).action).toBe('fire');
  });
  it('fires a condition on its change only, resolves it, and does not flap within the cooldown', () => {
    const first = decide(undefined, 'holds', 0, 10_000, true);
    expect(first.action).toBe('fire');
    const s1 = first.action === 'fire' ? first.next : undefined;
    expect(decide(s1, 'holds', 50_000, 10_000, true).action).toBe('none');
    expect(decide(s1, 'unknown', 50_000, 10_000, true).action).toBe('none');
    const res = decide(s1, 'clear', 50_000, 10_000, true);
    expect(res).toEqual({ action: 'resolve', next: { status: 'resolved', last_fired_at: 0, changed_at: 50_000 } });
    const s2 = res.action === 'resolve' ? res.next : undefined;
    expect(decide(s2, 'clear', 60_000, 10_000, true).action).toBe('none');
    expect(decide({ ...s2!, last_fired_at: 55_000 }, 'holds', 60_000, 10_000, true)).toEqual({ action: 'none', reason: 'cooldown' });
    expect(decide(s2, 'holds', 60_000, 10_000, true).action).toBe('fire');
  });
  it('never resolves kinds that do not recover', () => {
    expect(decide(firing(0), 'clear', 10, 0, false).action).toBe('none');
  });
});

describe('window verdicts', () => {
  it('compares a metric with its threshold once there are enough runs', () => {
    const p = { metric: 'completion_rate' as const, op: '<' as const, value: 0.6, window_s: 3600, min_runs: 5 };
    expect(evaluateThreshold({ runs: 10, ended: 4, completion_rate: 0.25 }, p).observation).toBe('unknown');
    expect(evaluateThreshold({ runs: 10, ended: 10, completion_rate: 0.5 }, p)).toEqual({ observation: 'holds', value: 0.5, count: 10 });
    expect(evaluateThreshold({ runs: 10, ended: 10, completion_rate: 0.6 }, p).observation).toBe('clear');
    const spend = { metric: 'cost_usd' as const, op: '>' as const, value: 50, window_s: 3600, min_runs: 1 };
    expect(evaluateThreshold({ runs: 3, ended: 0, cost_usd: 51 }, spend).observation).toBe('holds');
  });
  it('finds a significant completion-rate drop against the baseline', () => {
    const p = { window_s: 3600, baseline_s: 86400, min_drop: 0.1, min_runs: 20, max_p_value: 0.05 };
    const v = evaluateCompletionDrop({ ended: 20, successes: 6 }, { ended: 40, successes: 36 }, p);
    expect(v.observation).toBe('holds');
    expect(v.drop).toBeCloseTo(0.6);
    expect(v.p_value!).toBeLessThan(0.001);
    expect(evaluateCompletionDrop({ ended: 20, successes: 17 }, { ended: 40, successes: 36 }, p).observation).toBe('clear');
    expect(evaluateCompletionDrop({ ended: 10, successes: 0 }, { ended: 40, successes: 36 }, p).observation).toBe('unknown');
    // A large drop on a small sample is not significant.
    expect(evaluateCompletionDrop({ ended: 3, successes: 2 }, { ended: 3, successes: 3 }, { ...p, min_runs: 3 }).observation).toBe('clear');
  });
});

describe('costLimit', () => {
  it('sets the limit from an amount or a budget fraction', () => {
    expect(costLimit({ amount_usd: 5 }, null)).toBe(5);
    expect(costLimit({ budget_fraction: 0.8 }, 10)).toBe(8);
    expect(costLimit({ amount_usd: 5, budget_fraction: 1 }, 3)).toBe(3);
    expect(costLimit({ budget_fraction: 1 }, null)).toBeNull();
    expect(crosses(4, 5.5, 5)).toBe(true);
    expect(crosses(5.5, 6, 5)).toBe(false);
  });
});

describe('backoff', () => {
  it('grows exponentially with jitter and a ceiling', () => {
    const cfg = { baseMs: 100, maxMs: 1000 };
    expect(retryDelayMs(1, cfg, 0)).toBe(50);
    expect(retryDelayMs(1, cfg, 0.999)).toBeLessThanOrEqual(100);
    expect(retryDelayMs(3, cfg, 0)).toBe(200);
    expect(retryDelayMs(10, cfg, 0.5)).toBe(750);
    expect([500, 503, 429, 408].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 404, 410].some(isRetryableStatus)).toBe(false);
  });
});

describe('matchesFilters', () => {
  const run = { project: 'p', run_id: 'r', model: 'm1', step_models: ['m2'], agent: 'a', task_category: 'c', tags: { team: 'ml' } };
  const f = { project: [], model: [], agent: [], category: [], tag: {} };
  it('matches every filter given', () => {
    expect(matchesFilters(f, run)).toBe(true);
    expect(matchesFilters({ ...f, project: ['p'], model: ['m2'], tag: { team: 'ml' } }, run)).toBe(true);
    expect(matchesFilters({ ...f, project: ['q'] }, run)).toBe(false);
    expect(matchesFilters({ ...f, category: ['x'] }, run)).toBe(false);
    expect(matchesFilters({ ...f, tag: { team: 'web' } }, run)).toBe(false);
  });
});

describe('error_signature rules', () => {
  const p = errorSignatureParams.parse({ window_s: 3600, baseline_s: 86_400, new_min_runs: 2, growth_factor: 3, min_runs: 2 });
  it('fire on a new signature in more runs than new_min_runs', () => {
    expect(evaluateSignature({ runs: 2, occurrences: 5, new_in_window: true }, 0, p)).toEqual({ observation: 'clear', reason: null, factor: null });
    expect(evaluateSignature({ runs: 3, occurrences: 3, new_in_window: true }, 0, p)).toEqual({ observation: 'holds', reason: 'new', factor: null });
  });
  it('fire on a known one at growth_factor times its baseline rate, in min_runs runs', () => {
    // 3 an hour against 24 a day (1 an hour): 3×.
    expect(evaluateSignature({ runs: 3, occurrences: 3, new_in_window: false }, 24, p)).toMatchObject({ observation: 'holds', reason: 'growth', factor: 3 });
    expect(evaluateSignature({ runs: 2, occurrences: 2, new_in_window: false }, 24, p)).toMatchObject({ observation: 'clear', factor: 2 });
    expect(evaluateSignature({ runs: 1, occurrences: 9, new_in_window: false }, 24, p)).toMatchObject({ observation: 'clear' });
    // Known (seen before the baseline) but absent from it: back from nothing.
    expect(evaluateSignature({ runs: 2, occurrences: 2, new_in_window: false }, 0, p)).toEqual({ observation: 'holds', reason: 'growth', factor: null });
  });
});
