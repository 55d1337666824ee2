import { describe, expect, it } from 'vitest';
import {
  actionSignature,
  actionText,
  canonicalArguments,
  maskObservation,
  observationSignature,
  stepSignature,
} from '../../analytics/signatures.js';
import { signSteps, type StepInput, type ToolCallInput } from '../../analytics/signed-step.js';

describe('action signature', () => {
  it('canonicalises tool arguments: key order and whitespace do not matter', () => {
    const a = actionSignature({ tool_calls: [{ tool: 'bash', arguments: { cmd: 'ls  -la', cwd: '/repo' } }] });
    const b = actionSignature({ tool_calls: [{ tool: 'bash', arguments: '{"cwd":"/repo","cmd":"ls -la"}' }] });
    expect(a).toBe(b);
    expect(canonicalArguments({ b: [{ y: 1, x: '  a\n b ' }], a: null })).toBe('{"a":null,"b":[{"x":"a b","y":1}]}');
  });

  it('tells different tools or arguments apart', () => {
    const base = actionSignature({ tool_calls: [{ tool: 'bash', arguments: { cmd: 'ls' } }] });
    expect(actionSignature({ tool_calls: [{ tool: 'sh', arguments: { cmd: 'ls' } }] })).not.toBe(base);
    expect(actionSignature({ tool_calls: [{ tool: 'bash', arguments: { cmd: 'ls -a' } }] })).not.toBe(base);
  });

  it('ignores the order of parallel calls of one step', () => {
    const x = { tool: 'read', arguments: { path: 'a' } };
    const y = { tool: 'read', arguments: { path: 'b' } };
    expect(actionSignature({ tool_calls: [x, y] })).toBe(actionSignature({ tool_calls: [y, x] }));
  });

  it('falls back to the action text, whitespace collapsed, when there is no tool call', () => {
    expect(actionText({ action: '  edit 4:4\n  def f():\nend_of_edit\n' })).toBe('edit 4:4 def f(): end_of_edit');
    expect(actionSignature({ action: 'submit\n' })).toBe(actionSignature({ action: 'submit' }));
    expect(actionSignature({ action: 'submit', tool_calls: [] })).toBe(actionSignature({ action: ' submit ' }));
  });

  it('keeps arguments that are not JSON as collapsed text', () => {
    expect(canonicalArguments('not { json')).toBe('not { json');
    expect(canonicalArguments('')).toBe('');
    expect(canonicalArguments(undefined)).toBe('');
  });
});

describe('observation signature', () => {
  it('masks uuids, timestamps, durations, hex ids and long numbers', () => {
    expect(
      maskObservation(
        'job 3f2b8c1e-9a4d-4e2f-8b1a-0c9d8e7f6a5b at 2026-11-30T09:00:03.120Z (pid 482913) ' +
          'commit 20edef5 addr 0x7ffd2a10 took 0.52s at 09:00:03',
      ),
    ).toBe('job <uuid> at <ts> (pid <num>) commit <hex> addr <hex> took <dur> at <ts>');
  });

  it('keeps short numbers and ordinary words', () => {
    expect(maskObservation('progress 45% of 12 files; facade decade accepted')).toBe(
      'progress 45% of 12 files; facade decade accepted',
    );
  });

  it('makes outputs that differ only in volatile tokens equal, and real changes different', () => {
    const a = observationSignature('1 failed, 2 passed in 0.52s\nrequest 1700000000123', true);
    const b = observationSignature('1 failed,  2 passed in 0.61s request 1700000000999', true);
    expect(a).toBe(b);
    expect(observationSignature('2 failed, 1 passed in 0.52s', true)).not.toBe(a);
  });

  it('includes the error flag', () => {
    expect(observationSignature('exit 1', true)).not.toBe(observationSignature('exit 1', false));
  });

  it('step signature depends on both parts', () => {
    expect(stepSignature('a', 'o')).not.toBe(stepSignature('a', 'p'));
    expect(stepSignature('a', 'o')).not.toBe(stepSignature('b', 'o'));
  });
});

describe('signSteps', () => {
  const step = (over: Partial<StepInput> & { step: number }): StepInput => ({
    action: '',
    observation: '',
    error_type: '',
    error_message: '',
    input_tokens: 10,
    output_tokens: 5,
    cost_usd: null,
    ...over,
  });
  const call = (over: Partial<ToolCallInput>): ToolCallInput => ({
    step: 0,
    tool: 'bash',
    arguments: '{"cmd":"pytest"}',
    status: 'ok',
    output: '',
    ...over,
  });

  it('uses the tool calls of the step as its action, and their outputs and status', () => {
    const [s0, s1] = signSteps(
      [step({ step: 1, action: 'bash pytest' }), step({ step: 0, action: 'something else' })],
      [call({ step: 0, status: 'error', output: 'boom' }), call({ step: 1, output: 'boom', status: 'error' })],
    );
    expect(s0.step).toBe(0);
    expect(s0.action).toBe(s1.action);
    expect(s0.observation).toBe(s1.observation);
    expect(s0.error).toBe(true);
    expect(s0.tokens).toBe(15);
  });

  it('prices steps without cost_usd through the given function', () => {
    const [a, b] = signSteps([step({ step: 0, cost_usd: 0.5 }), step({ step: 1, action: 'x' })], [], { costOf: () => 0.25 });
    expect(a.cost_usd).toBe(0.5);
    expect(b.cost_usd).toBe(0.25);
    expect(signSteps([step({ step: 0, action: 'x' })])[0].cost_usd).toBe(0);
  });

  it('never gives equal signatures to steps that carry nothing to sign', () => {
    const [a, b] = signSteps([step({ step: 0 }), step({ step: 1 })]);
    expect(a.action).not.toBe(b.action);
    expect(a.observation).not.toBe(b.observation);
  });

  it('uses the error message as observation when there is no other', () => {
    const [a, b] = signSteps([
      step({ step: 0, action: 'x', error_type: 'ToolError', error_message: 'exit code 1' }),
      step({ step: 1, action: 'y', error_type: 'ToolError', error_message: 'exit code 1' }),
    ]);
    expect(a.observation).toBe(b.observation);
    expect(a.error).toBe(true);
  });
});
