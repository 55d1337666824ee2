// The gate's decision (bin/gate-command.ts `judge`): completion-rate floor, cost-per-success
// limit, too little data; and its table.
import { describe, expect, it } from 'vitest';
import { formatTable, judge, parsePairs } from '../../bin/gate-command.js';
import type { CompareReport, RunMetrics } from '../../schemas/api.js';

function metrics(ended: number, successes: number, cost: number): RunMetrics {
  return {
    runs: ended, ended, successes, running: 0, completion_rate: ended ? successes / ended : null, completion_rate_ci: null,
    cost_usd: cost, cost_per_run: ended ? cost / ended : null, cost_per_success: successes ? cost / successes : null,
    input_tokens: 0, output_tokens: 0, steps_total: 0, steps_avg: null, steps_p50: null, steps_p90: null, tool_calls: 0,
    tool_success_rate: null, self_correction_rate: null, latency_ms_avg: null, runs_with_loops: 0, failed: ended - successes, suspicious: 0,
  };
}
const report = (a: RunMetrics, b: RunMetrics): CompareReport => ({
  a, b, delta: {}, completion_test: { difference: (b.completion_rate ?? 0) - (a.completion_rate ?? 0), z: 0, p_value: 0.5 }, failure_modes: [],
});
const limits = { maxDrop: 0.05, maxCostIncrease: 0.25, minRuns: 10 };

describe('gate judge', () => {
  it('passes a drop at the floor and fails one just past it', () => {
    expect(judge(report(metrics(100, 80, 80), metrics(100, 75, 75)), limits).code).toBe(0);
    const r = judge(report(metrics(100, 80, 80), metrics(100, 74, 74)), limits);
    expect(r.code).toBe(1);
    expect(r.reasons[0]).toMatch(/completion rate dropped 6\.0 points/);
  });

  it('fails when cost per success rises beyond the limit even with a better completion rate', () => {
    const r = judge(report(metrics(100, 80, 80), metrics(100, 85, 85 * 1.3)), limits);
    expect(r.code).toBe(1);
    expect(r.reasons).toEqual([expect.stringMatching(/cost per success rose \+30\.0%/)]);
    expect(judge(report(metrics(100, 80, 80), metrics(100, 85, 85 * 1.2)), limits).code).toBe(0);
  });

  it('fails a candidate with no success and cannot judge cohorts with too few ended runs', () => {
    expect(judge(report(metrics(100, 80, 80), metrics(100, 0, 10)), { ...limits, maxDrop: 1 }).reasons).toContain('the candidate has no success');
    expect(judge(report(metrics(9, 8, 8), metrics(100, 80, 80)), limits).code).toBe(2);
  });

  it('parses key=value cohorts and prints one line per metric', () => {
    expect(parsePairs(['agent_version=2.0', 'tag=team:red'], 'x')).toEqual([['agent_version', '2.0'], ['tag', 'team:red']]);
    expect(() => parsePairs(['oops'], '--baseline')).toThrow(/key=value/);
    const table = formatTable(report(metrics(100, 80, 80), metrics(100, 74, 74)), [['agent_version', '1']], [['agent_version', '2']]);
    expect(table.split('\n')[0]).toMatch(/baseline \(agent_version=1\)\s+candidate \(agent_version=2\)\s+delta/);
    expect(table).toMatch(/completion rate\s+80\.0%\s+74\.0%\s+-6\.0 pts/);
  });
});
