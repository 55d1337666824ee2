// The compact trajectory view's pure logic: rows with loops folded (and unfolded), the row of a
// step, the view a URL asks for, what a line says about a step (its key argument), the rule that
// shows a tool call's text once when its step already shows it, and step numbers from 1.
import { describe, expect, it } from 'vitest';
import type { LoopInfo, StepIndex, StepRow, ToolCallRow } from '../../schemas/api.js';
import { callOverlap, compactRows, holdsText, lineSummary, rowOfPosition, viewMode } from '../../web/src/lib/compact-rows.js';
import { displayStep, storedStep } from '../../web/src/lib/step-label.js';
import { loopOfStep } from '../../web/src/lib/step-outline.js';

/** Steps 0…9, a repeat loop over steps 3…6 (4 repetitions), step 8 failing. */
const index: StepIndex = {
  project: 'p',
  run_id: 'r',
  step: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  input_tokens: [10, 10, 10, 100, 100, 100, 100, 10, 10, 10],
  output_tokens: [1, 1, 1, 5, 5, 5, 5, 1, 1, 1],
  cost_usd: [0.1, 0.1, 0.1, 0.25, 0.25, 0.25, 0.25, 0.1, 0.1, 0.1],
  latency_ms: [100, 100, 100, 200, null, 300, 400, 100, 100, 100],
  tool_calls: [1, 1, 1, 1, 1, 1, 1, 1, 1, 0],
  tools: ['', 'read', 'edit', 'bash'],
  tool: [1, 2, 2, 3, 3, 3, 3, 2, 3, 0],
  error: [0, 0, 0, 1, 1, 1, 1, 0, 1, 0],
};
const loops: LoopInfo[] = [{ kind: 'repeat', first_step: 3, last_step: 6, period: 1, repetitions: 4, tokens: 420, cost_usd: 1 }];
const all = index.step.map((_, i) => i);

function stepRow(p: Partial<StepRow>): StepRow {
  return {
    step: 0,
    ts: '2026-12-01T00:00:00.000Z',
    model: 'm',
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0,
    cost_estimated: false,
    latency_ms: null,
    action: '',
    observation: '',
    error_type: '',
    error_message: '',
    truncated: false,
    metadata: {},
    ...p,
  } as StepRow;
}

function call(p: Partial<ToolCallRow>): ToolCallRow {
  return { call_id: 'c', step: 0, ts: '2026-12-01T00:00:00.000Z', tool: 'bash', arguments: '{}', status: 'ok', error_type: '', error_message: '', duration_ms: 5, output: '', truncated: false, ...p };
}

describe('compactRows', () => {
  it('folds the steps of a loop into one row with their summed tokens, cost and latency', () => {
    const rows = compactRows(index, all, loopOfStep(loops), new Set());
    expect(rows.map((r) => (r.kind === 'step' ? r.pos : `loop${r.loop}`))).toEqual([0, 1, 2, 'loop0', 7, 8, 9]);
    expect(rows[3]).toEqual({ kind: 'loop', loop: 0, open: false, from: 3, to: 6, steps: 4, errors: 4, tokens: 420, cost_usd: 1, latency_ms: 900 });
  });

  it('lists an unfolded loop after its row, each step marked with the loop', () => {
    const rows = compactRows(index, all, loopOfStep(loops), new Set([0]));
    expect(rows.length).toBe(11);
    expect(rows[3]).toMatchObject({ kind: 'loop', open: true });
    expect(rows.slice(4, 8)).toEqual([3, 4, 5, 6].map((pos) => ({ kind: 'step', pos, loop: 0 })));
    expect(rows[8]).toEqual({ kind: 'step', pos: 7, loop: undefined });
  });

  it('folds only the shown steps (errors only), and nothing without loops', () => {
    const errors = all.filter((i) => index.error[i] === 1);
    const rows = compactRows(index, errors, loopOfStep(loops), new Set());
    expect(rows.map((r) => r.kind)).toEqual(['loop', 'step']);
    expect(rows[0]).toMatchObject({ from: 3, to: 6, steps: 4 });
    expect(compactRows(index, all, new Map(), new Set()).every((r) => r.kind === 'step')).toBe(true);
  });

  it('finds the row of a step: its own line, else its folded loop', () => {
    const folded = compactRows(index, all, loopOfStep(loops), new Set());
    expect(rowOfPosition(folded, 5)).toBe(3);
    expect(rowOfPosition(folded, 8)).toBe(5);
    const open = compactRows(index, all, loopOfStep(loops), new Set([0]));
    expect(rowOfPosition(open, 5)).toBe(6);
    expect(rowOfPosition(open, 42)).toBe(-1);
  });
});

describe('viewMode', () => {
  it('follows view= in the URL, else compact for runs of more than 30 steps', () => {
    expect(viewMode('?view=full', 5000)).toBe('full');
    expect(viewMode('?step=3&view=compact', 3)).toBe('compact');
    expect(viewMode('?view=other', 31)).toBe('compact');
    expect(viewMode('', 30)).toBe('full');
  });
});

describe('lineSummary (key argument)', () => {
  it('takes the path of an edit, the command of a shell, the query of a search', () => {
    const s = stepRow({ action: 'edit it' });
    expect(lineSummary(s, [call({ tool: 'str_replace_editor', arguments: '{"new_str":"b","old_str":"a","path":"src/a.py"}' })])).toEqual({ tool: 'str_replace_editor', what: 'src/a.py', error: '' });
    expect(lineSummary(s, [call({ arguments: '{"cmd":"make build","timeout":30}' })]).what).toBe('make build');
    expect(lineSummary(s, [call({ tool: 'search', arguments: '{"limit":5,"query":"FilteredRelation"}' })]).what).toBe('FilteredRelation');
    expect(lineSummary(s, [call({ arguments: '{"n":3,"text":"hello there"}' })]).what).toBe('hello there');
  });

  it('falls back to the first line of the action, and names the error type', () => {
    const s = stepRow({ action: 'think about it\nthen more', error_type: 'ToolError', error_message: 'x' });
    expect(lineSummary(s, [])).toEqual({ tool: '', what: 'think about it …', error: 'ToolError' });
    expect(lineSummary(stepRow({}), [call({ status: 'error', error_type: 'ExitCode' })]).error).toBe('ExitCode');
    expect(lineSummary(stepRow({}), [call({ status: 'error' })]).error).toBe('error');
  });
});

describe('callOverlap (a tool call shown once with its step)', () => {
  it('leaves out arguments inside the action and an output equal to the observation', () => {
    const s = stepRow({ action: 'bash {"cmd":"make build"}', observation: 'Error: build failed\n  at line 3', error_type: 'ToolError', error_message: 'exit code 2' });
    const c = call({ arguments: '{"cmd":"make build"}', output: 'Error: build failed at line 3', error_type: 'ExitCode', error_message: 'exit code 2' });
    expect(callOverlap(s, c)).toEqual({ args: true, output: true, error: true });
  });

  it('keeps what differs, and never merges empty texts', () => {
    const s = stepRow({ action: 'edit step 1', observation: 'ok' });
    expect(callOverlap(s, call({ arguments: '{"path":"src/a.py"}', output: 'ImportError', error_message: 'boom' }))).toEqual({ args: false, output: false, error: false });
    expect(callOverlap(stepRow({}), call({ arguments: '', output: '' }))).toEqual({ args: false, output: false, error: false });
    expect(holdsText('', 'x')).toBe(false);
    expect(holdsText('a b c', 'a  b')).toBe(true);
    // A short action does not stand for longer arguments: they would be lost.
    expect(holdsText('a  b', 'a b c')).toBe(false);
    expect(callOverlap(stepRow({ action: 'ls', observation: 'x' }), call({ arguments: '{"command":"ls -la /tmp"}', output: 'x y' }))).toEqual({ args: false, output: false, error: false });
  });
});

describe('step numbers', () => {
  it('are shown from 1 and stored from 0', () => {
    expect(displayStep(0)).toBe(1);
    expect(displayStep(4999)).toBe(5000);
    expect(storedStep(1)).toBe(0);
    expect(storedStep(displayStep(37))).toBe(37);
  });
});
