// The TypeScript SDK without a server: what it emits validates against the event contract (and
// uses only declared fields), chat responses map to steps, backoff and Retry-After, and the
// queue's guarantees (bounded, never throws, flush, shutdown) over an in-memory transport.
import { describe, expect, it } from 'vitest';
import { eventSchema, KNOWN_FIELDS, type EventType } from '../../schemas/events.js';
import {
  anthropicMessageStep,
  backoffDelay,
  openAIChatStep,
  parseRetryAfter,
  retryDelay,
  TrajscopeClient,
  TransportError,
  type DeliveryResult,
  type Transport,
  type TrajscopeError,
  type TrajscopeEvent,
} from '../../sdk/src/index.js';

/** Keeps what it is sent; fails the first `failures` sends with a retryable error. */
class MemoryTransport implements Transport {
  readonly events: TrajscopeEvent[] = [];
  sends = 0;
  constructor(private failures = 0, private readonly retryAfterMs?: number) {}
  async send(events: readonly TrajscopeEvent[]): Promise<DeliveryResult> {
    this.sends++;
    if (this.failures > 0) {
      this.failures--;
      throw new TransportError('server down', true, { status: 503, retryAfterMs: this.retryAfterMs });
    }
    this.events.push(...events);
    return { accepted: events.length, rejected: [] };
  }
}

const openAIResponse = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  model: 'gpt-4o-2024-08-06',
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'bash', arguments: '{"cmd":"ls -la"}' } },
          { id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.py"}' } },
        ],
      },
    },
  ],
  usage: {
    prompt_tokens: 1200,
    completion_tokens: 80,
    total_tokens: 1280,
    prompt_tokens_details: { cached_tokens: 1024 },
    completion_tokens_details: { reasoning_tokens: 32 },
  },
};

const anthropicResponse = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-20250514',
  stop_reason: 'tool_use',
  content: [
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_use', id: 'toolu_01', name: 'bash', input: { cmd: 'pytest -x' } },
  ],
  usage: { input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 4000, cache_creation_input_tokens: 300 },
};

function expectContractEvent(e: TrajscopeEvent): void {
  const parsed = eventSchema.safeParse(e);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  // Nothing the SDK sends lands in metadata by accident: every field is a declared one.
  for (const key of Object.keys(e)) expect(KNOWN_FIELDS[e.type as EventType].has(key), `${e.type}.${key}`).toBe(true);
}

describe('events the SDK emits', () => {
  it('validate against the contract, with every API call and option used', async () => {
    const transport = new MemoryTransport();
    const ts = new TrajscopeClient({ transport, project: 'sdk-unit', flushOnExit: false });
    const run = ts.startRun({
      runId: 'r1',
      agent: { name: 'fixer', version: '1.2' },
      model: 'gpt-4o',
      task: { id: 't-1', category: 'bugfix' },
      environment: 'sandbox',
      tags: { dataset: 'verified', shard: 3, canary: true },
      parentRunId: 'r0',
      maxSteps: 40,
      budgetUsd: 1.5,
      rl: { trainingStep: 12, policyVersion: 'ckpt-12', groupId: 'g', sampleIndex: 2 },
      metadata: { host: 'w1' },
    });
    expect(run.step({ model: 'gpt-4o', inputTokens: 10, outputTokens: 2, cacheReadTokens: 4, cacheWriteTokens: 1, reasoningTokens: 1, costUsd: 0.01, latencyMs: 120, action: 'think', observation: 'ok' })).toBe(0);
    run.toolCall({ tool: 'bash', arguments: { cmd: 'ls' }, output: 'a.py', durationMs: 30 });
    run.toolCall({ tool: 'bash', arguments: { cmd: 'false' }, error: { type: 'ExitCode', message: 'exit 1' } });
    expect(run.step({ error: { type: 'Timeout', message: 'slow' }, ts: new Date('2026-11-30T10:00:00Z') })).toBe(1);
    expect(run.recordOpenAIChat(openAIResponse, { latencyMs: 900 })).toBe(2);
    run.toolCall({ callId: 'call_a', output: 'total 0' });
    expect(run.recordAnthropicMessage(anthropicResponse)).toBe(3);
    run.toolCall({ callId: 'toolu_01', status: 'error', output: '1 failed' });
    run.score({ name: 'judge', value: 0.8, source: 'judge', comment: 'fine' });
    run.endRun({ status: 'failure', reward: 0, tests: { passed: 3, failed: 1 }, failureMode: 'tests_failed', error: { type: 'X', message: 'y' } });
    expect(await ts.flush()).toBe(true);

    expect(transport.events).toHaveLength(11);
    for (const e of transport.events) expectContractEvent(e);
    expect(transport.events.map((e) => e.type)).toEqual(['run_start', 'step', 'tool_call', 'tool_call', 'step', 'step', 'tool_call', 'step', 'tool_call', 'score', 'run_end']);
    expect(transport.events.every((e) => e.project === 'sdk-unit' && e.run_id === 'r1' && e.v === 1)).toBe(true);
    expect(transport.events[0]).toMatchObject({ parent_run_id: 'r0', max_steps: 40, budget_usd: 1.5, rl: { training_step: 12, policy_version: 'ckpt-12', group_id: 'g', sample_index: 2 } });
    const [, , ok, failed] = transport.events;
    expect(ok).toMatchObject({ step: 0, tool: 'bash', status: 'ok', duration_ms: 30 });
    expect(failed).toMatchObject({ step: 0, status: 'error', error: { type: 'ExitCode' } });
    expect(ok!.type === 'tool_call' && ok.call_id).not.toBe(failed!.type === 'tool_call' && failed.call_id);
    expect(transport.events[4]).toMatchObject({ ts: '2026-11-30T10:00:00.000Z' });
    // A tool result named by its call id takes the tool, arguments and step of the chat response.
    expect(transport.events[6]).toMatchObject({ type: 'tool_call', call_id: 'call_a', tool: 'bash', arguments: { cmd: 'ls -la' }, step: 2, status: 'ok' });
    expect(transport.events[8]).toMatchObject({ type: 'tool_call', call_id: 'toolu_01', tool: 'bash', arguments: { cmd: 'pytest -x' }, step: 3, status: 'error' });
    await ts.shutdown();
  });

  it('a tool call with no tool name is reported, not sent and not thrown', async () => {
    const transport = new MemoryTransport();
    const errors: TrajscopeError[] = [];
    const ts = new TrajscopeClient({ transport, flushOnExit: false, onError: (e) => errors.push(e) });
    const run = ts.startRun({ runId: 'r2' });
    expect(() => run.toolCall({ callId: 'unknown' })).not.toThrow();
    await ts.shutdown();
    expect(transport.events.map((e) => e.type)).toEqual(['run_start']);
    expect(errors.map((e) => e.kind)).toEqual(['invalid']);
  });
});

describe('chat responses as steps', () => {
  it('OpenAI chat completion: usage, model, tool calls as the action', () => {
    const { step, toolCalls } = openAIChatStep(openAIResponse);
    expect(step).toMatchObject({
      model: 'gpt-4o-2024-08-06',
      inputTokens: 1200,
      outputTokens: 80,
      cacheReadTokens: 1024,
      reasoningTokens: 32,
      action: 'bash {"cmd":"ls -la"}\nread_file {"path":"a.py"}',
      metadata: { response_id: 'chatcmpl-1', finish_reason: 'tool_calls' },
    });
    expect(toolCalls).toEqual([
      { callId: 'call_a', tool: 'bash', arguments: { cmd: 'ls -la' } },
      { callId: 'call_b', tool: 'read_file', arguments: { path: 'a.py' } },
    ]);
  });

  it('OpenAI reply without tool calls: the text is the action; Responses API output items', () => {
    expect(openAIChatStep({ model: 'm', choices: [{ message: { content: 'done' } }], usage: { prompt_tokens: 5, completion_tokens: 1 } }).step.action).toBe('done');
    const r = openAIChatStep({
      id: 'resp_1',
      model: 'gpt-5',
      status: 'completed',
      output: [
        { type: 'reasoning', summary: [] },
        { type: 'function_call', call_id: 'fc_1', name: 'search', arguments: '{"q":"x"}' },
      ],
      usage: { input_tokens: 50, output_tokens: 9, input_tokens_details: { cached_tokens: 10 }, output_tokens_details: { reasoning_tokens: 4 } },
    });
    expect(r.step).toMatchObject({ model: 'gpt-5', inputTokens: 50, outputTokens: 9, cacheReadTokens: 10, reasoningTokens: 4, action: 'search {"q":"x"}' });
    expect(r.toolCalls).toEqual([{ callId: 'fc_1', tool: 'search', arguments: { q: 'x' } }]);
  });

  it('Anthropic message: the whole prompt counted as input (cache reads and writes included)', () => {
    const { step, toolCalls } = anthropicMessageStep(anthropicResponse);
    expect(step).toMatchObject({
      model: 'claude-sonnet-4-20250514',
      inputTokens: 4400,
      outputTokens: 50,
      cacheReadTokens: 4000,
      cacheWriteTokens: 300,
      action: 'bash {"cmd":"pytest -x"}',
      metadata: { response_id: 'msg_01', stop_reason: 'tool_use' },
    });
    expect(toolCalls).toEqual([{ callId: 'toolu_01', tool: 'bash', arguments: { cmd: 'pytest -x' } }]);
  });

  it('garbage in: an empty step, no throw', () => {
    for (const bad of [null, undefined, 42, 'x', { choices: 'no' }, { content: [null, 1] }]) {
      expect(openAIChatStep(bad).toolCalls).toEqual([]);
      expect(anthropicMessageStep(bad).toolCalls).toEqual([]);
    }
  });

  it('the wrappers return the response and record the call; a failed call is a failed step, rethrown', async () => {
    const transport = new MemoryTransport();
    const ts = new TrajscopeClient({ transport, flushOnExit: false });
    const run = ts.startRun({ runId: 'w' });
    expect(await run.openAIChat(async () => openAIResponse)).toBe(openAIResponse);
    expect(await run.anthropicMessage(Promise.resolve(anthropicResponse))).toBe(anthropicResponse);
    await expect(run.openAIChat(() => Promise.reject(new RangeError('rate limited')), { model: 'gpt-4o' })).rejects.toThrow('rate limited');
    await ts.shutdown();
    const steps = transport.events.filter((e) => e.type === 'step');
    expect(steps.map((s) => s.step)).toEqual([0, 1, 2]);
    expect(steps[0]).toMatchObject({ model: 'gpt-4o-2024-08-06', input_tokens: 1200 });
    expect(steps[0]!.latency_ms).toBeGreaterThanOrEqual(0);
    expect(steps[2]).toMatchObject({ model: 'gpt-4o', error: { type: 'RangeError', message: 'rate limited' } });
    for (const e of transport.events) expectContractEvent(e);
  });
});

describe('backoff', () => {
  const o = { initialBackoffMs: 100, maxBackoffMs: 1_000 };
  it('doubles per attempt up to the ceiling, jittered in its upper half', () => {
    expect([0, 1, 2, 3, 4, 10].map((a) => backoffDelay(a, o, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([0, 1, 2, 3, 4, 10].map((a) => backoffDelay(a, o, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
  });
  it('never retries sooner than Retry-After (capped at 5 minutes)', () => {
    expect(retryDelay(0, 5_000, o, () => 1)).toBe(5_000);
    expect(retryDelay(5, 10, o, () => 1)).toBe(1_000);
    expect(retryDelay(0, 86_400_000, o, () => 1)).toBe(300_000);
  });
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-30T10:00:00Z');
    expect(parseRetryAfter('5', now)).toBe(5_000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Mon, 30 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 30 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('the queue', () => {
  it('is bounded: beyond maxQueueSize events are dropped and counted, calls never throw', async () => {
    // A transport that never answers: nothing leaves the queue.
    const transport: Transport = { send: () => new Promise(() => {}) };
    const errors: TrajscopeError[] = [];
    const ts = new TrajscopeClient({ transport, maxQueueSize: 50, batchSize: 10, flushOnExit: false, onError: (e) => errors.push(e) });
    const run = ts.startRun({ runId: 'q' });
    for (let i = 0; i < 99; i++) expect(() => run.step({ action: `a${i}` })).not.toThrow();
    expect(ts.stats()).toMatchObject({ enqueued: 50, dropped: 50, pending: 50, sent: 0 });
    expect(errors.every((e) => e.kind === 'dropped')).toBe(true);
    expect(await ts.flush(50)).toBe(false);
    const final = await ts.shutdown(50);
    // What was still queued at shutdown is dropped too (the batch stuck in send stays unsettled).
    expect(final.dropped).toBeGreaterThanOrEqual(90);
    run.step();
    expect(ts.stats().dropped).toBe(final.dropped + 1);
  });

  it('retries a batch until it is delivered, honouring Retry-After; flush waits for it', async () => {
    const transport = new MemoryTransport(3, 20);
    const ts = new TrajscopeClient({ transport, initialBackoffMs: 1, maxBackoffMs: 5, flushOnExit: false });
    const run = ts.startRun({ runId: 'retry' });
    for (let i = 0; i < 5; i++) run.step();
    expect(await ts.flush()).toBe(true);
    expect(transport.events).toHaveLength(6);
    expect(ts.stats()).toMatchObject({ sent: 6, retries: 3, dropped: 0, failed: 0, pending: 0 });
    await ts.shutdown();
  });

  it('a batch the server finds too large is halved until it fits; a non-retryable answer fails the batch', async () => {
    const sizes: number[] = [];
    const transport: Transport = {
      async send(events) {
        sizes.push(events.length);
        if (events.length > 3) throw new TransportError('too large', false, { status: 413, tooLarge: true });
        if (events.some((e) => e.type === 'score')) throw new TransportError('forbidden', false, { status: 403 });
        return { accepted: events.length, rejected: [] };
      },
    };
    const ts = new TrajscopeClient({ transport, batchSize: 100, flushOnExit: false, onError: () => {} });
    const run = ts.startRun({ runId: 'big' });
    for (let i = 0; i < 9; i++) run.step();
    expect(await ts.flush()).toBe(true);
    expect(ts.stats()).toMatchObject({ sent: 10, failed: 0 });
    run.score({ name: 's', value: 1 });
    expect(await ts.flush()).toBe(true);
    expect(ts.stats()).toMatchObject({ sent: 10, failed: 1, retries: 0 });
    await ts.shutdown();
    expect(sizes.slice(0, 3)).toEqual([10, 5, 3]);
  });
});
