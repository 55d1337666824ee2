// The analysis of a run of 100,000 steps and 200,000 tool calls (analytics/analyze-run.ts): it
// completes, with its failure mode and its loop, where spreading its timestamps into Math.max
// overflowed the call stack and left such runs without an analysis.
import { describe, expect, it } from 'vitest';
import { analyzeRun, type RunRows, type StoredStep, type StoredToolCall } from '../../analytics/analyze-run.js';
import { extent } from '../../analytics/robust-stats.js';

const STEPS = 100_000;
const LOOP = 4200;
const T0 = Date.UTC(2026, 11, 1);

function hugeRun(): RunRows {
  const steps: StoredStep[] = [];
  const calls: StoredToolCall[] = [];
  for (let s = 0; s < STEPS; s++) {
    const inLoop = s >= LOOP && s < LOOP + 12;
    const action = inLoop ? 'bash {"cmd":"make build"}' : `edit {"path":"src/file_${s}.ts"}`;
    const observation = inLoop ? 'Error: build failed' : `edited src/file_${s}.ts`;
    steps.push({ step: s, ts: T0 + s * 1000, action, observation, error_type: '', error_message: '', input_tokens: 2000, output_tokens: 100, cost_usd: 0.001, latency_ms: 500 });
    calls.push({ step: s, ts: T0 + s * 1000 + 100, tool: 'view', arguments: `{"path":"src/file_${s}.ts"}`, status: 'ok', error_type: '', error_message: '', output: 'ok', duration_ms: 10 });
    calls.push({ step: s, ts: T0 + s * 1000 + 200, tool: inLoop ? 'bash' : 'edit', arguments: inLoop ? '{"cmd":"make build"}' : `{"path":"src/file_${s}.ts"}`, status: inLoop ? 'error' : 'ok', error_type: inLoop ? 'ExitCode' : '', error_message: inLoop ? 'exit code 2' : '', output: observation, duration_ms: 100 });
  }
  const iso = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
  return {
    summary: { project: 'p', run_id: 'huge', status: 'failure', started_at: iso(T0), ended_at: iso(T0 + STEPS * 1000), last_event_at: iso(T0 + STEPS * 1000), error_message: `stopped after ${STEPS} steps`, max_steps: STEPS },
    steps,
    tool_calls: calls,
    verifier_score: null,
    source_ingested_at: iso(T0 + STEPS * 1000),
  };
}

describe('a run of 100,000 steps', () => {
  it('is analysed: its loop and its failure mode', () => {
    const row = analyzeRun(hugeRun(), { now: T0 + STEPS * 1000 + 60_000 });
    expect(row.loop_count).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(String(row.loops))[0].first_step).toBe(LOOP);
    expect(row.failure_mode).not.toBe('');
    expect(row.final_error).toBe(`stopped after ${STEPS} steps`);
  }, 60_000);

  it('extent holds for any length', () => {
    const many = Array.from({ length: 500_000 }, (_, i) => (i * 7919) % 500_000);
    expect(extent(many)).toEqual([0, 499_999]);
    expect(extent([])).toEqual([Infinity, -Infinity]);
  });
});
