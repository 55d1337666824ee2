// A failed run's final error (analytics/final-error.ts): run_end's error unless the last step
// recorded it, else the last step's observation when that step recorded no error; nothing for a
// run that did not fail.
import { describe, expect, it } from 'vitest';
import { finalError, FINAL_ERROR_MAX, readsAsFailure } from '../../analytics/final-error.js';
import { hasFailed } from '../../analytics/run-outcome.js';

const step = (n: number, error = '') => ({ step: n, error_message: error });
const call = (n: number | null, status: 'ok' | 'error', error = '') => ({ step: n, status, error_message: error });

describe('finalError', () => {
  it('takes run_end’s error, at the last step', () => {
    expect(finalError({ failed: true, endError: ' crashed ', steps: [step(0), step(3), step(1)], tool_calls: [] })).toEqual({ source: 'run_end', text: 'crashed', step: 3 });
    expect(finalError({ failed: true, endError: 'crashed', steps: [], tool_calls: [] })).toEqual({ source: 'run_end', text: 'crashed', step: null });
  });
  it('leaves run_end’s error to the step or call that recorded the same message', () => {
    expect(finalError({ failed: true, endError: 'disk full', steps: [step(0), step(1, 'disk full')], tool_calls: [] })).toBeNull();
    expect(finalError({ failed: true, endError: 'disk full', steps: [step(0), step(1)], tool_calls: [call(1, 'error', 'disk full')] })).toBeNull();
    expect(finalError({ failed: true, endError: 'disk full', steps: [step(0), step(1, 'other')], tool_calls: [] })?.source).toBe('run_end');
  });
  it('takes the last observation when the last step recorded no error', () => {
    expect(finalError({ failed: true, endError: '', steps: [step(0), step(1)], tool_calls: [call(1, 'ok')], finalObservation: 'FAILED test_x' }))
      .toEqual({ source: 'final_observation', text: 'FAILED test_x', step: 1 });
    expect(finalError({ failed: true, endError: '', steps: [step(0), step(1)], tool_calls: [call(1, 'error')], finalObservation: 'FAILED' })).toBeNull();
    expect(finalError({ failed: true, endError: '', steps: [step(0), step(1, 'x')], tool_calls: [], finalObservation: 'FAILED' })).toBeNull();
    expect(finalError({ failed: true, endError: '', steps: [step(0)], tool_calls: [], finalObservation: '  ' })).toBeNull();
    expect(finalError({ failed: true, endError: '', steps: [step(0)], tool_calls: [], finalObservation: `Error: ${'y'.repeat(FINAL_ERROR_MAX + 5)}` })?.text).toHaveLength(FINAL_ERROR_MAX);
  });
  it('takes only an observation that reads as a failure', () => {
    const pytest = ['============ test session starts ============', 'collected 3 items', ...Array.from({ length: 20 }, (_, i) => `line ${i}`), '==== 1 failed, 2 passed in 0.12s ===='].join('\n');
    expect(readsAsFailure(pytest)).toBe(true);
    expect(readsAsFailure('Traceback (most recent call last):\n  File "a.py", line 1\nKeyError: 3')).toBe(true);
    expect(readsAsFailure('bash: pytest: command not found')).toBe(true);
    expect(readsAsFailure('Process exited with exit code 2')).toBe(true);
    // The ends of failed tau-bench conversations (../shared/fixtures/real/tau-bench).
    for (const polite of ['Thank you so much for your help! ###STOP###', 'Transfer successful', '[]', 'exit code 0', 'All 12 tests passed']) {
      expect(readsAsFailure(polite), polite).toBe(false);
    }
    // An error word only in the middle of a long output is not how it ends.
    expect(readsAsFailure(['ok', 'error in line 3 was fixed', ...Array.from({ length: 10 }, (_, i) => `step ${i} ok`)].join('\n'))).toBe(false);
    expect(finalError({ failed: true, endError: '', steps: [step(0)], tool_calls: [], finalObservation: 'Thank you! ###STOP###' })).toBeNull();
  });
  it('gives nothing for a run that did not fail', () => {
    expect(finalError({ failed: false, endError: 'crashed', steps: [step(0)], tool_calls: [], finalObservation: 'FAILED' })).toBeNull();
  });
  it('calls failed what FAILED_SQL does: ended, not a success, not waiting for a verdict', () => {
    expect(['failure', 'error', 'timeout', 'cancelled', 'abandoned'].every((s) => hasFailed(s as never))).toBe(true);
    expect(['success', 'submitted', 'running'].some((s) => hasFailed(s as never))).toBe(false);
  });
});
