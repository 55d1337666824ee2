// The record batch decoder that replaces kafkajs's own must give exactly what kafkajs's gives
// (the same fields with the same values, read from its records as kafkajs's are read; the read
// position moved alike; the same error on a partial batch), on batches encoded by kafkajs's own
// encoder: plain and gzip, keys and headers of every shape, offsets and timestamps past 2^53, the
// timestamp and control flags.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  decodeRecordBatch,
  installRecordBatchDecoder,
  kafkajsRecordBatchDecoder,
  RECORD_FIELDS,
} from '../../ingest/kafka/record-batch-decoder.js';
import { Compression as Types, encodeBatch, KafkajsDecoder as Decoder, plainBatch, type RecordArgs } from './kafkajs-encoding.js';

const require = createRequire(import.meta.url);

async function both(buf: Buffer): Promise<{ ours: unknown; theirs: unknown; oursAt: number; theirsAt: number }> {
  const a = new Decoder(buf);
  const b = new Decoder(buf);
  const ours = plainBatch(await decodeRecordBatch(a));
  const theirs = await kafkajsRecordBatchDecoder()(b);
  return { ours, theirs, oursAt: a.offset, theirsAt: b.offset };
}

const bytes = (s: string) => Buffer.from(s, 'utf8');
const sample: RecordArgs[] = [
  { offsetDelta: 0, timestampDelta: 0, key: bytes('run-1'), value: bytes('{"type":"step","step":0}') },
  { offsetDelta: 1, timestampDelta: 25, key: null, value: bytes('') },
  { offsetDelta: 2, timestampDelta: -40, key: bytes('run-2'), value: null, headers: { a: bytes('1') } },
  { offsetDelta: 3, timestampDelta: 3, key: bytes('ünïcode'), value: bytes('{"x":"ünïcode ✓"}'), headers: { dup: [bytes('1'), bytes('2'), bytes('3')], single: bytes('x'), empty: bytes('') } },
];

describe('record batch decoder', () => {
  it('decodes plain batches exactly as kafkajs does', async () => {
    const r = await both(await encodeBatch(sample));
    expect(r.ours).toEqual(r.theirs);
    // kafkajs's records have exactly the fields ours give, in this order.
    expect(Object.keys((r.theirs as { records: object[] }).records[0])).toEqual([...RECORD_FIELDS]);
    expect(r.oursAt).toBe(r.theirsAt);
    expect((r.ours as { records: { headers: unknown }[] }).records[3].headers).toEqual({ dup: [bytes('1'), bytes('2'), bytes('3')], single: bytes('x'), empty: bytes('') });
  });

  it('decodes gzip batches of many records exactly as kafkajs does', async () => {
    const many: RecordArgs[] = Array.from({ length: 2_000 }, (_, i) => ({
      offsetDelta: i,
      timestampDelta: i * 7,
      key: bytes(`bench-run-${Math.floor(i / 100)}`),
      value: bytes(JSON.stringify({ v: 1, type: 'step', run_id: `bench-run-${Math.floor(i / 100)}`, step: i % 100 })),
    }));
    const r = await both(await encodeBatch(many, { compression: Types.GZIP, firstOffset: '123456789' }));
    expect((r.ours as { records: unknown[] }).records).toHaveLength(2_000);
    expect(r.ours).toEqual(r.theirs);
    expect(r.oursAt).toBe(r.theirsAt);
  });

  it('is exact for offsets and timestamps past 2^53 and deltas of more than 49 bits', async () => {
    const records: RecordArgs[] = [
      { offsetDelta: 0, timestampDelta: 0, key: null, value: bytes('a') },
      { offsetDelta: 5, timestampDelta: 2n ** 50n + 3n, key: null, value: bytes('b') },
      { offsetDelta: 9, timestampDelta: -(2n ** 52n), key: null, value: bytes('c') },
    ];
    for (const [firstOffset, firstTimestamp] of [['9007199254740990', '9007199254740000'], ['4611686018427387904', '-1'], ['0', '9223372036854775000']]) {
      const r = await both(await encodeBatch(records, { firstOffset, firstTimestamp }));
      expect(r.ours).toEqual(r.theirs);
    }
  });

  it('reads the log-append-time, transactional and control flags as kafkajs does', async () => {
    for (const attributes of [0x8, 0x10, 0x20, 0x8 | 0x20]) {
      const r = await both(await encodeBatch(sample, { attributes }));
      expect(r.ours).toEqual(r.theirs);
    }
    const logAppend = (await both(await encodeBatch(sample, { attributes: 0x8 }))).ours as { records: { timestamp: string }[] };
    expect(logAppend.records.map((m) => m.timestamp)).toEqual(Array(sample.length).fill('1764547299999'));
  });

  it('moves along consecutive batches alike and fails a partial one with the same error', async () => {
    const one = await encodeBatch(sample, { firstOffset: '10' });
    const two = await encodeBatch(sample.slice(0, 2), { firstOffset: '14', compression: Types.GZIP });
    const buf = Buffer.concat([one, two, one.subarray(0, one.length - 5)]);
    const a = new Decoder(buf);
    const b = new Decoder(buf);
    const theirs = kafkajsRecordBatchDecoder();
    for (let i = 0; i < 2; i++) {
      expect(plainBatch(await decodeRecordBatch(a))).toEqual(await theirs(b));
      expect(a.offset).toBe(b.offset);
    }
    const ours = await decodeRecordBatch(a).catch((e: Error) => e);
    const kafkajs = await theirs(b).catch((e: Error) => e);
    expect(ours).toBeInstanceOf(Error);
    expect((ours as Error).name).toBe('KafkaJSPartialMessageError');
    expect((ours as Error).message).toBe((kafkajs as Error).message);
  });

  it('takes the place of kafkajs decoder on its fetch path', () => {
    expect(installRecordBatchDecoder()).toEqual({ installed: true });
    expect(require('kafkajs/src/protocol/recordBatch/v0/decoder.js')).toBe(decodeRecordBatch);
    // kafkajs's fetch path now loads with it.
    require('kafkajs/src/protocol/requests/fetch/v4/decodeMessages.js');
    expect(installRecordBatchDecoder()).toEqual({ installed: true });
  });
});
