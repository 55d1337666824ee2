// The hand-written check (schemas/event-fast-check.ts) must never accept what zod rejects, and
// should accept what zod accepts for the common shapes (otherwise it only costs time). Both are
// compared on valid events and on every field of each type set to a range of wrong values.
import { describe, expect, it } from 'vitest';
import { benchEvents } from '../../bench/bench-events.js';
import { passesEventSchema } from '../../schemas/event-fast-check.js';
import { eventSchema, type EventType } from '../../schemas/events.js';
import { normalizeEvent } from '../../schemas/normalize-event.js';
import { exampleRun } from '../helpers/test-server.js';

const BAD_VALUES: unknown[] = [
  null, -1, 1.5, 0, 2 ** 60, -0.5, 1e308, '', 'x', 'x'.repeat(201), 'x'.repeat(501), true, {}, [], [1], { type: 3 }, { name: 3 },
  { message: 'm', extra: 1 }, { a: 'b' }, { a: [1] }, { a: { b: 1 } }, '2026-11-30T09:00:00Z', '2026-11-30', 'ok', 'error',
  'success', 'judge',
];

const FULL: Record<EventType, Record<string, unknown>> = {
  run_start: {
    v: 1, type: 'run_start', event_id: 'e1', project: 'p', run_id: 'r', ts: '2026-11-30T09:00:00Z', metadata: { k: 'v' },
    agent: { name: 'a', version: '1' }, model: 'm', task: { id: 't', category: 'c' }, environment: 'env', tags: { a: 'b', n: 1, f: true },
    parent_run_id: 'pr', max_steps: 10, budget_usd: 1.5, rl: { training_step: 3, policy_version: 'v', group_id: 'g', sample_index: 0 }, extra: 1,
  },
  step: {
    v: 1, type: 'step', run_id: 'r', step: 1, ts: 1764493200000, model: 'm', input_tokens: 1, output_tokens: 2, cache_read_tokens: 3,
    cache_write_tokens: 4, reasoning_tokens: 5, cost_usd: 0.1, latency_ms: 12.5, action: 'a', observation: 'o', error: { type: 't', message: 'm' },
  },
  tool_call: {
    type: 'tool_call', run_id: 'r', step: 1, call_id: 'c', tool: 'bash', arguments: { cmd: 'ls' }, status: 'error', error: { type: 't' },
    duration_ms: 3, output: 'out',
  },
  run_end: { type: 'run_end', run_id: 'r', status: 'failure', reward: -1, tests: { passed: 1, failed: 2 }, failure_mode: 'loop', error: { message: 'm' } },
  score: { type: 'score', run_id: 'r', name: 'n', value: 0.5, source: 'judge', comment: 'c' },
};

const opts = { maxTextChars: 100, defaultProject: 'default', now: Date.parse('2026-11-30T12:00:00Z') };

function zodAccepts(v: unknown): boolean {
  return eventSchema.safeParse(v).success;
}

describe('fast event check', () => {
  it('accepts the valid events zod accepts', () => {
    for (const e of [...exampleRun(), ...benchEvents(200), ...Object.values(FULL)]) {
      expect(zodAccepts(e), JSON.stringify(e)).toBe(true);
      expect(passesEventSchema(e as Record<string, unknown>, (e as { type: EventType }).type), JSON.stringify(e)).toBe(true);
    }
  });

  it('agrees with zod on every field set to wrong or unusual values', () => {
    let compared = 0;
    for (const [type, full] of Object.entries(FULL) as [EventType, Record<string, unknown>][]) {
      for (const field of Object.keys(full)) {
        if (field === 'type') continue;
        for (const bad of [undefined, ...BAD_VALUES]) {
          const e: Record<string, unknown> = { ...full, [field]: bad };
          if (bad === undefined) delete e[field];
          expect(passesEventSchema(e, type), `${type}.${field} = ${JSON.stringify(bad)}`).toBe(zodAccepts(e));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('leaves odd objects to zod, which then decides', () => {
    const withProto = JSON.parse('{"type":"step","run_id":"r","step":1,"__proto__":{"x":1}}') as Record<string, unknown>;
    expect(passesEventSchema(withProto, 'step')).toBe(false);
    expect(normalizeEvent(withProto, opts).ok).toBe(zodAccepts(withProto));
    const dated = { type: 'step', run_id: 'r', step: 1, metadata: new Date(0) };
    expect(passesEventSchema(dated, 'step')).toBe(false);
    expect(normalizeEvent(dated, opts)).toEqual({ ok: false, error: expect.stringMatching(/^metadata:/) });
  });

  it('normalizes a checked event exactly as zod parsed it', () => {
    for (const e of [...exampleRun(), ...Object.values(FULL), ...benchEvents(20)]) {
      // zod's output is a copy without anything zod does not know to keep; normalizing it (it
      // passes the fast check too) must give the same event as normalizing the original.
      const parsed = eventSchema.parse(e);
      expect(normalizeEvent(e, opts)).toEqual(normalizeEvent(parsed, opts));
    }
  });
});
