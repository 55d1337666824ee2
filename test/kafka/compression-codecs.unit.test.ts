// The snappy, lz4 and zstd codecs on record batches that clients we did not write compressed:
// librdkafka (kcat -z) and the broker's Java code (snappy-java's xerial framing, lz4-java,
// zstd-jni), kept as the broker stored them (compressed-fixtures.ts). Both our record batch
// decoder and kafkajs's own (through the codec table) must read back exactly the messages sent.
// A batch that cannot be decoded becomes one placeholder whose ingest error names the codec
// and the offsets, instead of an error that fails the fetch.
import { describe, expect, it } from 'vitest';
import {
  DecodeOnlyCodecError,
  installCompressionCodecs,
  lz4Codec,
  snappyCodec,
  zstdCodec,
} from '../../ingest/kafka/compression-codecs.js';
import { parseMessages } from '../../ingest/kafka/parse-messages.js';
import { decodeRecordBatch, kafkajsRecordBatchDecoder, type DecodedRecordBatch, type RecordBatchDecoder } from '../../ingest/kafka/record-batch-decoder.js';
import { SnappyFramingError, snappyDecompress } from '../../ingest/kafka/snappy-codec.js';
import { FIXTURE_CODECS, fixtureLines, readFixture, type FixtureWriter } from './compressed-fixtures.js';
import { encodeBatch, KafkajsDecoder, plainBatch } from './kafkajs-encoding.js';

installCompressionCodecs();

/** Offset of a batch's records (or compressed payload) from the start of its encoding. */
const PAYLOAD_AT = 61;
const LENGTH_AT = 8;

/** Every record batch of a log segment (or fetched record set), decoded by `decode`. */
async function decodeAll(buf: Buffer, decode: RecordBatchDecoder): Promise<DecodedRecordBatch[]> {
  const decoder = new KafkajsDecoder(buf);
  const batches: DecodedRecordBatch[] = [];
  while (decoder.offset < buf.length) batches.push(await decode(decoder));
  return batches;
}

function payloadOf(segment: Buffer): Buffer {
  return segment.subarray(PAYLOAD_AT, LENGTH_AT + 4 + segment.readInt32BE(LENGTH_AT));
}

const lines = fixtureLines();

describe('compression codecs on batches compressed by librdkafka and by Kafka\'s Java code', () => {
  for (const codec of FIXTURE_CODECS) {
    for (const writer of ['librdkafka', 'java'] as FixtureWriter[]) {
      it(`${writer} ${codec}: every message back, as kafkajs's own decoder reads it too`, async () => {
        const segment = readFixture(writer, codec);
        const ours = await decodeAll(segment, decodeRecordBatch);
        const records = ours.flatMap((b) => b.records);
        expect(records.map((r) => `${r.key?.toString()}\t${r.value?.toString()}`)).toEqual(lines);
        expect(records.map((r) => r.offset)).toEqual(lines.map((_, i) => String(i)));
        expect(await decodeAll(segment, kafkajsRecordBatchDecoder())).toEqual(ours.map(plainBatch));
      });
    }
  }

  it('reads snappy both ways Kafka clients write it: xerial blocks (Java) and one raw block (librdkafka)', () => {
    const java = payloadOf(readFixture('java', 'snappy'));
    const librdkafka = payloadOf(readFixture('librdkafka', 'snappy'));
    expect(java.subarray(0, 8).toString('latin1')).toBe('\x82SNAPPY\x00');
    expect(librdkafka.subarray(0, 8).toString('latin1')).not.toBe('\x82SNAPPY\x00');
    // 70 KB of input: snappy-java wrote it in blocks of 32 KiB.
    expect(java.readInt32BE(16) + 20).toBeLessThan(java.length);
    expect(snappyDecompress(java)).toEqual(snappyDecompress(librdkafka));
  });

  it('says where a xerial snappy payload is cut', () => {
    const java = payloadOf(readFixture('java', 'snappy'));
    expect(() => snappyDecompress(java.subarray(0, java.length - 10))).toThrow(SnappyFramingError);
    expect(() => snappyDecompress(java.subarray(0, 18))).toThrow(/block at byte 16/);
  });

  it('only decodes snappy, lz4 and zstd: compress() says so with a typed error', async () => {
    for (const [codec, name] of [[snappyCodec, 'snappy'], [lz4Codec, 'lz4'], [zstdCodec, 'zstd']] as const) {
      const err = await codec.compress({ buffer: Buffer.from('x') }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DecodeOnlyCodecError);
      expect((err as Error).message).toContain(name);
    }
  });
});

describe('a record batch that cannot be decoded', () => {
  const bytes = (s: string) => Buffer.from(s, 'utf8');
  const records = [0, 1, 2].map((i) => ({ offsetDelta: i, timestampDelta: i, key: bytes(`run-${i}`), value: bytes(`{"type":"step","step":${i}}`) }));

  it('with a codec id Kafka does not define: one placeholder at its last offset, whose ingest error names the codec and offsets', async () => {
    const batch = await encodeBatch(records, { firstOffset: '500', attributes: 5 });
    const [decoded] = await decodeAll(batch, decodeRecordBatch);
    expect(decoded.records).toHaveLength(1);
    expect(decoded.records[0].offset).toBe('502');
    const [item] = parseMessages(decoded.records);
    expect(item.ok).toBe(false);
    const error = (item as { error: string }).error;
    expect(error).toMatch(/offsets 500-502 \(3 records, compression codec id 5\)/);
    expect(error).toMatch(/no decoder for compression codec id 5/);
  });

  it('that does not decompress: the same, naming the codec and why', async () => {
    const segment = Buffer.from(readFixture('librdkafka', 'snappy'));
    // Cut the compressed payload in half (the batch's length field follows, so only the codec fails).
    const cut = PAYLOAD_AT + (segment.length - PAYLOAD_AT) / 2;
    const broken = segment.subarray(0, cut);
    broken.writeInt32BE(cut - LENGTH_AT - 4, LENGTH_AT);
    const [decoded] = await decodeAll(broken, decodeRecordBatch);
    expect(decoded.records.map((r) => r.offset)).toEqual(['239']);
    const [item] = parseMessages(decoded.records);
    expect((item as { error: string }).error).toMatch(/^record batch of offsets 0-239 \(240 records, snappy\) could not be decoded: .+/);
  });

  it('does not make an ordinary empty message look like one', () => {
    expect(parseMessages([{ value: Buffer.alloc(0) } as never, { value: null } as never]).map((i) => (i as { error: string }).error)).toEqual([
      'empty message: a message must carry one JSON event',
      'empty message: a message must carry one JSON event',
    ]);
  });
});
