import { describe, expect, it } from 'vitest';
import {
  abandoned,
  agentError,
  budgetExceeded,
  cancelled,
  classifyFailure,
  collectRunFacts,
  contextOverflow,
  deadLoop,
  DEFAULT_FAILURE_CONFIG,
  environmentError,
  FAILURE_RULES,
  gaveUp,
  stepLimit,
  testsFailed,
  timeout,
  toolErrorCascade,
  type RunFacts,
} from '../../analytics/failure-modes/index.js';
import type { Loop } from '../../analytics/loops/index.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const facts = (over: Partial<RunFacts> = {}): RunFacts => ({
  status: 'failure',
  failure_mode: '',
  steps: 10,
  max_steps: 50,
  errors: [],
  tool_call_statuses: [],
  cost_usd: 0.5,
  budget_usd: 2,
  tests_passed: null,
  tests_failed: null,
  reward: null,
  loops: [],
  last_event_ts: NOW - 1000,
  now: NOW,
  ...over,
});
const cfg = DEFAULT_FAILURE_CONFIG;
const loop: Loop = { kind: 'repeat', first_step: 4, last_step: 7, period: 1, repetitions: 4, tokens: 10, cost_usd: 0.1 };
const err = (message: string, type = '', source: 'run' | 'step' | 'tool' = 'step') => ({ source, type, message });

describe('failure-mode rules', () => {
  it('deadLoop: any loop, else nothing', () => {
    expect(deadLoop(facts({ loops: [loop] }), cfg)).toMatchObject({ mode: 'dead_loop', reason: 'repeat loop of 4 steps, 4 repetitions' });
    expect(deadLoop(facts(), cfg)).toBeNull();
  });

  it('stepLimit: steps reached max_steps, not below it, not without a limit', () => {
    expect(stepLimit(facts({ steps: 50, max_steps: 50 }), cfg)).toMatchObject({ mode: 'step_limit' });
    expect(stepLimit(facts({ steps: 51, max_steps: 50 }), cfg)).not.toBeNull();
    expect(stepLimit(facts({ steps: 49, max_steps: 50 }), cfg)).toBeNull();
    expect(stepLimit(facts({ steps: 500, max_steps: null }), cfg)).toBeNull();
  });

  it('timeout: status timeout only', () => {
    expect(timeout(facts({ status: 'timeout' }), cfg)).toMatchObject({ mode: 'timeout' });
    expect(timeout(facts({ status: 'error' }), cfg)).toBeNull();
  });

  it('contextOverflow: provider messages about the context window', () => {
    const positives = [
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
      'prompt is too long: 215000 tokens > 200000 maximum',
      'Input exceeds the context window of this model',
    ];
    for (const message of positives) expect(contextOverflow(facts({ errors: [err(message)] }), cfg), message).not.toBeNull();
    expect(contextOverflow(facts({ errors: [err('', 'ContextWindowExceededError')] }), cfg)).not.toBeNull();
    expect(contextOverflow(facts({ errors: [err('IndexError: list index out of range')] }), cfg)).toBeNull();
  });

  it('toolErrorCascade: the last 3 tool calls failed, not 2, not an earlier streak', () => {
    expect(toolErrorCascade(facts({ tool_call_statuses: ['ok', 'error', 'error', 'error'] }), cfg)).toMatchObject({
      reason: 'the last 3 tool calls failed',
    });
    expect(toolErrorCascade(facts({ tool_call_statuses: ['ok', 'error', 'error'] }), cfg)).toBeNull();
    expect(toolErrorCascade(facts({ tool_call_statuses: ['error', 'error', 'error', 'ok'] }), cfg)).toBeNull();
    expect(toolErrorCascade(facts({ tool_call_statuses: ['error', 'error'] }), { ...cfg, toolErrorCascade: 2 })).not.toBeNull();
  });

  it('environmentError: infrastructure errors by configurable patterns', () => {
    for (const message of ['container exited unexpectedly', 'connect ECONNREFUSED 10.0.0.7:8080', 'No space left on device', 'pod OOMKilled']) {
      expect(environmentError(facts({ errors: [err(message)] }), cfg), message).not.toBeNull();
    }
    expect(environmentError(facts({ errors: [err('SyntaxError: invalid syntax')] }), cfg)).toBeNull();
    const custom = { ...cfg, environmentPatterns: [/^gpu lost$/i] };
    expect(environmentError(facts({ errors: [err('GPU lost')] }), custom)).not.toBeNull();
    expect(environmentError(facts({ errors: [err('container exited unexpectedly')] }), custom)).toBeNull();
  });

  it('budgetExceeded: cost passed the budget, not equal to it', () => {
    expect(budgetExceeded(facts({ cost_usd: 2.01, budget_usd: 2 }), cfg)).toMatchObject({ mode: 'budget_exceeded' });
    expect(budgetExceeded(facts({ cost_usd: 2, budget_usd: 2 }), cfg)).toBeNull();
    expect(budgetExceeded(facts({ cost_usd: 99, budget_usd: null }), cfg)).toBeNull();
  });

  it('testsFailed: some tests failed, or a verifier reward of 0', () => {
    expect(testsFailed(facts({ tests_passed: 11, tests_failed: 2 }), cfg)).toMatchObject({ reason: '2 of 13 tests failed' });
    expect(testsFailed(facts({ reward: 0 }), cfg)).toMatchObject({ reason: 'verifier reward 0' });
    expect(testsFailed(facts({ tests_passed: 5, tests_failed: 0, reward: 0.5 }), cfg)).toBeNull();
    expect(testsFailed(facts(), cfg)).toBeNull();
  });

  it('agentError, gaveUp, cancelled: by status', () => {
    expect(agentError(facts({ status: 'error', errors: [err('boom', 'ValueError', 'run')] }), cfg)?.reason).toContain('ValueError: boom');
    expect(agentError(facts({ status: 'failure' }), cfg)).toBeNull();
    expect(gaveUp(facts({ status: 'failure' }), cfg)).toMatchObject({ mode: 'gave_up' });
    expect(gaveUp(facts({ status: 'error' }), cfg)).toBeNull();
    expect(cancelled(facts({ status: 'cancelled' }), cfg)).toMatchObject({ mode: 'cancelled' });
  });

  it('abandoned: no run_end and idle for the configured time', () => {
    const idle = facts({ status: null, last_event_ts: NOW - cfg.idleTimeoutMs });
    expect(abandoned(idle, cfg)).toMatchObject({ mode: 'abandoned', reason: 'no run_end and no event for 30 min' });
    expect(abandoned(facts({ status: null, last_event_ts: NOW - cfg.idleTimeoutMs + 1 }), cfg)).toBeNull();
    expect(abandoned(facts({ status: 'failure', last_event_ts: 0 }), cfg)).toBeNull();
  });
});

describe('classifyFailure', () => {
  it('gives no label to a success, even with loops or a label', () => {
    expect(classifyFailure(facts({ status: 'success', loops: [loop], failure_mode: 'x' }))).toBeNull();
  });

  it('gives no label to a run still going', () => {
    expect(classifyFailure(facts({ status: null, loops: [loop] }))).toBeNull();
  });

  it('lets the user label override every rule', () => {
    expect(classifyFailure(facts({ failure_mode: 'wrong_file', loops: [loop] }))).toEqual({
      mode: 'wrong_file',
      rule: 'user_label',
      reason: 'label given in run_end',
    });
  });

  it('applies the rules in the documented order', () => {
    expect(FAILURE_RULES.map(([name]) => name)).toEqual([
      'dead_loop', 'step_limit', 'timeout', 'context_overflow', 'tool_error_cascade', 'environment_error',
      'budget_exceeded', 'tests_failed', 'agent_error', 'gave_up', 'abandoned', 'cancelled',
    ]);
    const everything = facts({
      status: 'timeout',
      loops: [loop],
      steps: 50,
      errors: [err('maximum context length exceeded'), err('ECONNRESET')],
      tool_call_statuses: ['error', 'error', 'error'],
      cost_usd: 5,
      tests_failed: 1,
    });
    const order: string[] = [];
    let f: RunFacts = everything;
    const peel: Array<Partial<RunFacts>> = [
      { loops: [] }, { steps: 10 }, { status: 'error' }, { errors: [err('ECONNRESET')] }, { tool_call_statuses: [] },
      { errors: [] }, { cost_usd: 0 }, { tests_failed: null }, { status: 'failure' }, { status: null, last_event_ts: 0 },
    ];
    for (const change of [{}, ...peel]) {
      f = { ...f, ...change };
      order.push(classifyFailure(f)!.rule);
    }
    expect(order).toEqual([
      'dead_loop', 'step_limit', 'timeout', 'context_overflow', 'tool_error_cascade', 'environment_error',
      'budget_exceeded', 'tests_failed', 'agent_error', 'gave_up', 'abandoned',
    ]);
  });

  it('takes config overrides', () => {
    const f = facts({ status: null, last_event_ts: NOW - 5 * 60_000 });
    expect(classifyFailure(f)).toBeNull();
    expect(classifyFailure(f, { idleTimeoutMs: 60_000 })?.rule).toBe('abandoned');
  });
});

describe('collectRunFacts', () => {
  it('gathers facts from normalized events', () => {
    const f = collectRunFacts({
      start: { max_steps: 50, budget_usd: 2, ts: 1000 },
      steps: [
        { step: 1, error_type: 'ToolError', error_message: 'exit code 1', ts: 3000 },
        { step: 0, error_type: '', error_message: '', ts: 2000 },
      ],
      tool_calls: [
        { step: 1, status: 'error', error_type: 'ExitCode', error_message: 'exit code 1', ts: 3100 },
        { step: 0, status: 'ok', error_type: '', error_message: '', ts: 2100 },
      ],
      end: {
        status: 'failure', failure_mode: '', reward: null, tests_passed: 11, tests_failed: 2,
        error_type: '', error_message: '', ts: 9000,
      },
      verifier_score: 0,
      cost_usd: 0.12,
      loops: [],
      now: 10_000,
    });
    expect(f).toMatchObject({
      status: 'failure', steps: 2, max_steps: 50, budget_usd: 2, tool_call_statuses: ['ok', 'error'],
      tests_failed: 2, reward: 0, last_event_ts: 9000, cost_usd: 0.12,
    });
    expect(f.errors.map((e) => e.source)).toEqual(['step', 'tool']);
    expect(classifyFailure(f)?.rule).toBe('tests_failed');
  });
});
