// Shaping of the RL pages' data: chart rows, failure-mode mix, environment trends, labels.
import { describe, expect, it } from 'vitest';
import type { EnvironmentRow, RlStepPoint } from '../../schemas/api.js';
import {
  environmentTrendRows,
  failureMixRows,
  OTHER_MODES,
  passText,
  recentMean,
  stalenessText,
  trainingRows,
  trendXLabel,
} from '../../web/src/lib/rl-view.js';

function point(key: number, over: Partial<RlStepPoint> = {}): RlStepPoint {
  return {
    key, rollouts: 10, ended: 10, completion_rate: 0.5, reward_mean: 0.5, reward_std: 0.4, reward_p10: 0, reward_p50: 0.5,
    reward_p90: 1, steps_per_rollout: 6, tokens_per_rollout: 9000, cost_per_rollout: 0.01, groups: 2, zero_advantage_groups: 1,
    zero_advantage_share: 0.5, failure_modes: {}, ...over,
  };
}

describe('trainingRows', () => {
  it('gives the reward band, percentages and per-rollout effort per step', () => {
    const rows = trainingRows([point(0, { completion_rate: 0.1234 }), point(1, { reward_p10: null, reward_p90: null, zero_advantage_share: null })]);
    expect(rows[0]).toMatchObject({ x: 0, reward_band: [0, 1], completion_pct: 12.3, zero_adv_pct: 50, steps: 6, cost_usd: 0.01 });
    expect(rows[1]).toMatchObject({ x: 1, reward_band: null, zero_adv_pct: null });
  });
});

describe('failureMixRows', () => {
  it('keeps the most frequent modes, sums the rest as other, as a share of rollouts', () => {
    const points = [
      point(0, { failure_modes: { tests_failed: 4, timeout: 1, dead_loop: 1 } }),
      point(1, { rollouts: 20, failure_modes: { tests_failed: 2, environment_error: 3 } }),
    ];
    const { modes, rows } = failureMixRows(points, 2);
    expect(modes).toEqual(['tests_failed', 'environment_error', OTHER_MODES]);
    expect(rows[0]).toEqual({ x: 0, tests_failed: 40, environment_error: 0, [OTHER_MODES]: 20 });
    expect(rows[1]).toEqual({ x: 1, tests_failed: 10, environment_error: 15, [OTHER_MODES]: 0 });
    expect(failureMixRows(points, 5).modes).not.toContain(OTHER_MODES);
  });
});

describe('environmentTrendRows', () => {
  const env = (environment: string, trend: EnvironmentRow['trend']): EnvironmentRow => ({
    environment, runs: 1, ended: 1, environment_errors: 0, error_rate: 0, tool_calls: 1, tool_ms_p50: 1, tool_ms_p95: 1, env_share: 0.5, trend,
  });
  it('puts one column per environment on each x, in x order, shares as percent', () => {
    const envs = [
      env('a', [{ x: 10, runs: 1, error_rate: 0, tool_ms_p50: 100.4, tool_ms_p95: 200, env_share: 0.25 }, { x: 0, runs: 1, error_rate: 0.5, tool_ms_p50: 90, tool_ms_p95: 100, env_share: 0.2 }]),
      env('b', [{ x: 0, runs: 1, error_rate: null, tool_ms_p50: null, tool_ms_p95: null, env_share: null }]),
    ];
    expect(environmentTrendRows(envs, 'tool_ms_p50')).toEqual([{ x: 0, a: 90, b: null }, { x: 10, a: 100 }]);
    expect(environmentTrendRows(envs, 'env_share')).toEqual([{ x: 0, a: 20, b: null }, { x: 10, a: 25 }]);
    expect(environmentTrendRows(envs, 'error_rate')[0]).toEqual({ x: 0, a: 50, b: null });
  });
});

describe('labels', () => {
  it('formats pass@k, staleness, trend x and recent means', () => {
    expect(passText(null)).toBe('—');
    expect(passText(1)).toBe('100%');
    expect(passText(0.8333)).toBe('83.3%');
    expect(stalenessText(null)).toBeNull();
    expect(stalenessText({ trainer_step: 12, policy_version: "v12", reported_at: "", training_step: 11, rollouts: 10, lag_p50: 1, lag_max: 3 })).toBe('1 step behind (max 3)');
    expect(trendXLabel('training_step', 40)).toBe('step 40');
    expect(trendXLabel('time', '2026-11-30T09:00:00.000Z')).toBe('11-30 09:00');
    expect(recentMean([1, null, 0.5, 0, 1], 3)).toBeCloseTo(0.5, 12);
    expect(recentMean([null])).toBeNull();
  });
});
