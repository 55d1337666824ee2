// Live loop detection in the ingest path (ingest/analysis/live-loops.ts): signals at the step
// that closes a loop, tool calls sent along with a step included, bounded memory, idle runs
// dropped.
import { afterEach, describe, expect, it } from 'vitest';
import { LiveLoopDetector, type LoopSignal } from '../../ingest/analysis/live-loops.js';
import type { StepEvent, ToolCallEvent, TrajEvent } from '../../schemas/normalize-event.js';

const base = { project: 'p', metadata: {}, truncated: false, event_id: '' };
const step = (run_id: string, n: number, action: string, observation = 'ok'): StepEvent => ({
  ...base, type: 'step', run_id, ts: n, step: n, model: '', input_tokens: 10, output_tokens: 5, cache_read_tokens: 0,
  cache_write_tokens: 0, reasoning_tokens: 0, cost_usd: 0.01, latency_ms: null, action, observation, error_type: '', error_message: '',
});
const call = (run_id: string, n: number, tool: string, args: string, output: string): ToolCallEvent => ({
  ...base, type: 'tool_call', run_id, ts: n, step: n, call_id: `c${n}`, tool, arguments: args, status: 'ok', error_type: '',
  error_message: '', duration_ms: null, output,
});

let detector: LiveLoopDetector | null = null;
afterEach(async () => detector?.close());

function make(o: Partial<ConstructorParameters<typeof LiveLoopDetector>[0]> = {}) {
  const signals: LoopSignal[] = [];
  detector = new LiveLoopDetector({ maxRuns: 1000, idleMs: 60_000, settleMs: 10, record: async (s) => void signals.push(...s), ...o });
  return { d: detector, signals };
}

describe('LiveLoopDetector', () => {
  it('signals a repeat at the step that closes it, once', async () => {
    const { d, signals } = make();
    const feed = async (e: TrajEvent[]) => {
      d.notify(e);
      await d.flush();
    };
    await feed([step('r', 0, 'ls'), step('r', 1, 'cat a')]);
    await feed([step('r', 2, 'run tests', 'FAILED 1')]);
    await feed([step('r', 3, 'run tests', 'FAILED 1')]);
    expect(signals).toEqual([]); // two repeats are a near miss
    await feed([step('r', 4, 'run tests', 'FAILED 1')]);
    expect(signals).toHaveLength(1);
    expect(signals[0]).toMatchObject({ project: 'p', run_id: 'r', kind: 'loop_detected', step: 4, signal_id: 'loop/repeat/2' });
    expect(JSON.parse(signals[0].details)).toMatchObject({ kind: 'repeat', first_step: 2, last_step: 4, repetitions: 3 });
    await feed([step('r', 5, 'run tests', 'FAILED 1')]);
    expect(signals).toHaveLength(1); // the same loop going on is not signalled again
  });

  it('signs a step with the tool calls that arrive with it, in the same or a following batch', async () => {
    const { d, signals } = make({ settleMs: 30 });
    // Same action text, but the tool calls' outputs differ: polling with new answers is no loop.
    for (let i = 0; i < 5; i++) {
      d.notify([step('poll', i, '', '')]);
      d.notify([call('poll', i, 'status', '{"job":1}', `progress ${i * 10}% at step ${'x'.repeat(i)}`)]);
    }
    await d.flush();
    expect(signals).toEqual([]);
    for (let i = 0; i < 3; i++) d.notify([step('stuck', i, ''), call('stuck', i, 'status', '{"job":1}', 'pending')]);
    await d.flush();
    expect(signals.map((s) => s.run_id)).toEqual(['stuck']);
  });

  it('counts the tokens and cost spent inside a loop, pricing steps sent without a cost', async () => {
    const priced: number[] = [];
    const { d, signals } = make({
      costOf: (s) => {
        priced.push(s.step);
        return s.input_tokens * 0.001;
      },
    });
    const unpriced = (n: number) => ({ ...step('c', n, 'make', 'error: missing file'), cost_usd: null, input_tokens: 100 + n });
    d.notify([unpriced(0), step('c', 1, 'make', 'error: missing file'), unpriced(2)]);
    await d.flush();
    expect(priced).toEqual([0, 2]); // only the steps that carry no cost
    expect(signals).toHaveLength(1);
    const loop = JSON.parse(signals[0].details) as { tokens: number; cost_usd: number; first_step: number; last_step: number };
    expect(loop).toMatchObject({ first_step: 0, last_step: 2, tokens: 100 + 5 + 10 + 5 + 102 + 5 });
    expect(loop.cost_usd).toBeCloseTo(0.1 + 0.01 + 0.102, 10);
  });

  it('keeps at most maxRuns runs, dropping the least recently active, and drops idle and ended runs', async () => {
    let now = 0;
    const { d } = make({ maxRuns: 500, idleMs: 1000, clock: () => now });
    for (let i = 0; i < 20_000; i++) d.notify([step(`run-${i}`, 0, 'a')]);
    expect(d.size).toBe(500);
    expect(d.stats.evicted).toBe(19_500);
    now = 500;
    d.notify([step('run-19999', 1, 'b')]);
    d.notify([{ ...base, type: 'run_end', run_id: 'run-19998', ts: 1, status: 'success', reward: null, tests_passed: null, tests_failed: null, failure_mode: '', error_type: '', error_message: '' }]);
    expect(d.size).toBe(499);
    now = 1200;
    d.dropIdle();
    expect(d.size).toBe(1); // only run-19999 was active within the last second
  });
});
