// kafkajs's own encoder of record batches and its Decoder, for checking and timing our record
// batch decoder against kafkajs's on the bytes kafkajs's producer would send (a test and
// bench/kafka-decode.ts use it). These are kafkajs internals: typed here as far as they are used.
import { createRequire } from 'node:module';
import { RECORD_FIELDS, type DecodedRecordBatch, type FetchDecoder } from '../../ingest/kafka/record-batch-decoder.js';

const require = createRequire(import.meta.url);
type Encoded = { buffer: Buffer };
export type RecordArgs = { offsetDelta?: number; timestampDelta?: number | bigint; key: Buffer | null; value: Buffer | null; headers?: Record<string, unknown> };
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js') as { RecordBatch: (args: Record<string, unknown>) => Promise<Encoded> };
const Record = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (args: RecordArgs) => Encoded;
const Long = require('kafkajs/src/utils/long.js') as { fromValue(v: unknown): unknown };

/** kafkajs's Decoder over a fetched buffer, at its start. */
export const KafkajsDecoder = require('kafkajs/src/protocol/decoder.js') as new (b: Buffer) => FetchDecoder;
/** kafkajs's compression types and its codec table (which installGzipCodec writes to). */
export const { Types: Compression, Codecs: CompressionCodecs } = require('kafkajs/src/protocol/message/compression/index.js') as {
  Types: { None: number; GZIP: number };
  Codecs: Record<number, () => unknown>;
};

/** Offset of a batch's attributes (int16) from the start of its encoding: firstOffset, length, epoch, magic, crc. */
const ATTRIBUTES_AT = 8 + 4 + 4 + 1 + 4;

/** One record batch as kafkajs encodes it; `attributes` bits are set on it afterwards (kafkajs's encoder sets none of the flags). */
export async function encodeBatch(
  records: RecordArgs[],
  opts: { compression?: number; firstOffset?: string; firstTimestamp?: string; attributes?: number } = {},
): Promise<Buffer> {
  const encoded = await RecordBatch({
    compression: opts.compression ?? Compression.None,
    firstOffset: Long.fromValue(opts.firstOffset ?? '0'),
    firstTimestamp: Long.fromValue(opts.firstTimestamp ?? '1764547200000'),
    maxTimestamp: Long.fromValue('1764547299999'),
    lastOffsetDelta: records.length - 1,
    producerId: Long.fromValue(-1),
    records: records.map((r) => Record(r)),
  });
  const buf = Buffer.from(encoded.buffer);
  if (opts.attributes) buf.writeInt16BE(buf.readInt16BE(ATTRIBUTES_AT) | opts.attributes, ATTRIBUTES_AT);
  return buf;
}

/** A decoded batch with each record's fields read out as plain values (ours read them from the bytes when asked). */
export function plainBatch(batch: DecodedRecordBatch): unknown {
  const records = batch.records.map((r) => Object.fromEntries(RECORD_FIELDS.map((f) => [f, (r as unknown as Record<string, unknown>)[f]])));
  return { ...batch, records };
}
