// Zero-advantage groups, never / always solved tasks and flaky verdicts on crafted rollouts.
import { describe, expect, it } from 'vitest';
import { actionSequenceKey } from '../../analytics/rl/action-sequence.js';
import { detectFlaky, taskVerdict, zeroAdvantageShare, type RolloutOutcome } from '../../analytics/rl/task-signals.js';
import { signSteps } from '../../analytics/signed-step.js';

describe('zeroAdvantageShare', () => {
  it('is the share of groups (≥ 2 scored rollouts) whose rewards are all equal', () => {
    const groups = [
      [1, 1, 1, 1], // all solved: no signal
      [0, 0, 0, 0], // all failed: no signal
      [0, 1, 0, 1],
      [0.25, 0.25, 0], // partial rewards differ
      [1, null, 1], // a rollout not scored yet; the two scored agree
      [1], // one rollout: no advantage to compute, left out
      [null, null],
    ];
    expect(zeroAdvantageShare(groups)).toBeCloseTo(3 / 5, 12);
    expect(zeroAdvantageShare([[1]])).toBeNull();
    expect(zeroAdvantageShare([[0.5, 0.5 + 1e-12]])).toBe(1);
  });
});

describe('taskVerdict', () => {
  it('flags never and always solved tasks only after enough attempts', () => {
    expect(taskVerdict(8, 0, 8)).toBe('never_solved');
    expect(taskVerdict(8, 8, 8)).toBe('always_solved');
    expect(taskVerdict(12, 5, 8)).toBe('learning');
    expect(taskVerdict(7, 0, 8)).toBe('too_few_attempts');
    expect(taskVerdict(7, 7, 8)).toBe('too_few_attempts');
  });
});

/** A run's action-sequence key from its tool calls, one per step, as the analyzer builds it. */
function keyOf(calls: Array<[string, unknown]>): string {
  const steps = calls.map((_, i) => ({ step: i, action: '', observation: 'ok', error_type: '', error_message: '', input_tokens: 0, output_tokens: 0, cost_usd: 0 }));
  const toolCalls = calls.map(([tool, args], i) => ({ step: i, tool, arguments: JSON.stringify(args), status: 'ok' as const, output: 'ok' }));
  return actionSequenceKey(signSteps(steps, toolCalls).map((s) => s.action));
}

describe('actionSequenceKey', () => {
  it('is equal for identical action sequences (arguments canonicalised) and differs otherwise', () => {
    const a = keyOf([['bash', { cmd: 'ls', cwd: '/' }], ['bash', { cmd: 'pytest' }]]);
    const sameReordered = keyOf([['bash', { cwd: '/', cmd: 'ls' }], ['bash', { cmd:   'pytest' }]]);
    const otherOrder = keyOf([['bash', { cmd: 'pytest' }], ['bash', { cmd: 'ls', cwd: '/' }]]);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(sameReordered).toBe(a);
    expect(otherOrder).not.toBe(a);
    expect(actionSequenceKey([])).toBe('');
    expect(actionSequenceKey(['unsigned:0'])).toBe('');
  });
});

describe('detectFlaky', () => {
  const seqA = keyOf([['run_sql', { q: 'select 1' }]]);
  const seqB = keyOf([['run_sql', { q: 'select 2' }]]);
  const r = (run_id: string, task_id: string, action_sequence: string, solved: boolean, reward: number | null): RolloutOutcome => ({
    run_id, task_id, action_sequence, solved, reward,
  });

  it('finds identical action sequences of one task with different outcomes or rewards', () => {
    const runs = [
      // t1: same actions, solved once and failed once → flaky
      r('a1', 't1', seqA, true, 1), r('a2', 't1', seqA, false, 0), r('a3', 't1', seqA, true, 1),
      // t1 with other actions and a consistent verdict → not flaky
      r('b1', 't1', seqB, false, 0), r('b2', 't1', seqB, false, 0),
      // t2: same outcome, different rewards → flaky
      r('c1', 't2', seqA, false, 0.25), r('c2', 't2', seqA, false, 0),
      // t3: same actions, same verdict → not flaky; t4: one run only
      r('d1', 't3', seqA, true, 1), r('d2', 't3', seqA, true, 1),
      r('e1', 't4', seqB, true, 1),
      // runs without actions never group
      r('f1', 't5', '', true, 1), r('f2', 't5', '', false, 0),
    ];
    const flaky = detectFlaky(runs);
    expect(flaky.map((f) => [f.task_id, f.runs, f.solved, f.min_reward, f.max_reward])).toEqual([
      ['t1', 3, 2, 0, 1],
      ['t2', 2, 0, 0, 0.25],
    ]);
    expect(flaky[0].run_ids).toEqual(['a1', 'a2', 'a3']);
  });

  it('does not mix tasks that happen to share an action sequence', () => {
    expect(detectFlaky([r('x', 't1', seqA, true, 1), r('y', 't2', seqA, false, 0)])).toEqual([]);
  });
});
