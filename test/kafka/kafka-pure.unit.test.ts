// The pure pieces of Kafka ingestion: message parsing, dead-letter messages, ingest stats.
import { describe, expect, it } from 'vitest';
import type { KafkaMessage } from 'kafkajs';
import { DeadLetterLog } from '../../ingest/kafka/dead-letter-log.js';
import { deadLetterMessage, DLQ_HEADERS } from '../../ingest/kafka/dead-letters.js';
import { IngestStats } from '../../ingest/kafka/ingest-stats.js';
import { parseMessage, parseMessages } from '../../ingest/kafka/parse-messages.js';

const msg = (value: string | null, offset = '7', headers: KafkaMessage['headers'] = {}): KafkaMessage => ({
  key: Buffer.from('run-1'),
  value: value === null ? null : Buffer.from(value),
  timestamp: '0',
  attributes: 0,
  offset,
  headers,
});

describe('parseMessage', () => {
  it('accepts one JSON object', () => {
    expect(parseMessage(Buffer.from('{"type":"step","run_id":"r"}'))).toEqual({ ok: true, value: { type: 'step', run_id: 'r' } });
  });
  it('rejects empty, non-JSON, arrays and scalars with a reason', () => {
    expect(parseMessage(null)).toMatchObject({ ok: false, error: expect.stringMatching(/empty/) });
    expect(parseMessage(Buffer.alloc(0))).toMatchObject({ ok: false, error: expect.stringMatching(/empty/) });
    expect(parseMessage(Buffer.from('{oops'))).toMatchObject({ ok: false, error: expect.stringMatching(/not valid JSON/) });
    expect(parseMessage(Buffer.from('[{"type":"step"}]'))).toMatchObject({ ok: false, error: expect.stringMatching(/one JSON object/) });
    expect(parseMessage(Buffer.from('42'))).toMatchObject({ ok: false, error: expect.stringMatching(/one JSON object/) });
    expect(parseMessage(Buffer.from('null'))).toMatchObject({ ok: false });
  });
  it('keeps the order and count of a batch', () => {
    const items = parseMessages([msg('{"a":1}'), msg('x'), msg('{"b":2}')]);
    expect(items.map((i) => i.ok)).toEqual([true, false, true]);
  });
});

describe('deadLetterMessage', () => {
  it('keeps the original key, bytes and headers and adds reason and source', () => {
    const m = deadLetterMessage({ message: msg('{bad', '42', { trace: 'abc' }), reason: 'not valid JSON' }, { topic: 't', partition: 3 }, Date.parse('2026-11-30T00:00:00Z'));
    expect(m.key).toEqual(Buffer.from('run-1'));
    expect(m.value).toEqual(Buffer.from('{bad'));
    expect(m.headers).toMatchObject({
      trace: 'abc',
      [DLQ_HEADERS.error]: 'not valid JSON',
      [DLQ_HEADERS.topic]: 't',
      [DLQ_HEADERS.partition]: '3',
      [DLQ_HEADERS.offset]: '42',
      [DLQ_HEADERS.failedAt]: '2026-11-30T00:00:00.000Z',
    });
  });
  it('cuts very long reasons', () => {
    const m = deadLetterMessage({ message: msg('x'), reason: 'r'.repeat(10_000) }, { topic: 't', partition: 0 });
    expect(String(m.headers![DLQ_HEADERS.error]).length).toBe(2_000);
  });
});

describe('IngestStats', () => {
  it('computes events per second over its window', () => {
    const s = new IngestStats(10_000);
    s.consumed(5_000, 1_000);
    s.consumed(5_000, 3_000);
    expect(s.eventsConsumed).toBe(10_000);
    expect(s.rate(5_000)).toBe(2_500); // 10,000 over the 4 s since the first sample
    expect(s.rate(20_000)).toBe(0); // all samples fell out of the window
  });
  it('records the last error and what it saw per partition', () => {
    const s = new IngestStats();
    s.error(new Error('boom'), Date.parse('2026-11-30T00:00:00Z'));
    expect(s.lastError).toEqual({ message: 'boom', at: '2026-11-30T00:00:00.000Z' });
    s.seen(2, { committed: '10', highWatermark: '12' });
    s.seen(2, { committed: '12' });
    expect(s.partitions.get(2)).toEqual({ partition: 2, committed: '12', highWatermark: '12' });
  });
});

describe('DeadLetterLog', () => {
  const setup = (everyMs = 10_000) => {
    let now = 1_000;
    const lines: string[] = [];
    const log = new DeadLetterLog('t.dlq', (l) => lines.push(l), everyMs, () => now);
    return { log, lines, advance: (ms: number) => (now += ms) };
  };
  it('logs the first batch at once, then adds later ones up to one line per interval', () => {
    const { log, lines, advance } = setup();
    log.sent({ topic: 't', partition: 2, count: 1, reason: 'not valid JSON' });
    expect(lines).toEqual(['kafka: 1 message of t[2] went to t.dlq (latest reason: not valid JSON)']);
    advance(3_000);
    log.sent({ topic: 't', partition: 0, count: 4, reason: 'empty message' });
    advance(3_000);
    log.sent({ topic: 't', partition: 2, count: 5, reason: 'missing run_id' });
    expect(lines).toHaveLength(1); // within the interval: added up, not written
    advance(4_000);
    log.sent({ topic: 't', partition: 2, count: 1, reason: 'bad ts' });
    expect(lines[1]).toBe('kafka: 10 messages of t[0], t[2] went to t.dlq (latest reason: bad ts)');
  });
  it('writes what was added up once the interval is over, without another batch', async () => {
    const lines: string[] = [];
    const log = new DeadLetterLog('t.dlq', (l) => lines.push(l), 50);
    log.sent({ topic: 't', partition: 0, count: 1, reason: 'first' });
    log.sent({ topic: 't', partition: 0, count: 2, reason: 'later' });
    expect(lines).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 120));
    expect(lines).toEqual(['kafka: 1 message of t[0] went to t.dlq (latest reason: first)', 'kafka: 2 messages of t[0] went to t.dlq (latest reason: later)']);
  });
  it('flush writes what is left, and nothing when nothing is', () => {
    const { log, lines, advance } = setup();
    log.flush();
    expect(lines).toEqual([]);
    log.sent({ topic: 't', partition: 1, count: 2, reason: 'r1' });
    advance(1);
    log.sent({ topic: 't', partition: 1, count: 3, reason: 'r2' });
    log.flush();
    expect(lines).toEqual(['kafka: 2 messages of t[1] went to t.dlq (latest reason: r1)', 'kafka: 3 messages of t[1] went to t.dlq (latest reason: r2)']);
    log.flush();
    expect(lines).toHaveLength(2);
  });
});

describe('IngestStats.deadLettered', () => {
  it('counts every dead letter and keeps the latest, newest first, a few per batch, at most 50', () => {
    const stats = new IngestStats();
    const letters = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ offset: String(i), reason: `${tag} ${i}` }));
    stats.deadLettered(2, letters(3, 'a'), Date.parse('2026-12-01T10:00:00Z'));
    expect(stats.dlqSent).toBe(3);
    expect(stats.recentDeadLetters.map((d) => d.reason)).toEqual(['a 0', 'a 1', 'a 2']);
    expect(stats.recentDeadLetters[0]).toEqual({ at: '2026-12-01T10:00:00.000Z', partition: 2, offset: '0', reason: 'a 0' });
    stats.deadLettered(0, letters(25, 'b'));
    expect(stats.dlqSent).toBe(28);
    expect(stats.recentDeadLetters).toHaveLength(13); // 10 of the 25, then the 3 before
    expect(stats.recentDeadLetters[0].reason).toBe('b 0');
    expect(stats.recentDeadLetters[10].reason).toBe('a 0');
    for (let i = 0; i < 6; i++) stats.deadLettered(1, letters(10, `c${i}`));
    expect(stats.recentDeadLetters).toHaveLength(50);
    expect(stats.recentDeadLetters[0].reason).toBe('c5 0');
    stats.deadLettered(1, [{ offset: '9', reason: 'x'.repeat(2_000) }]);
    expect(stats.recentDeadLetters[0].reason).toHaveLength(500);
  });
});
