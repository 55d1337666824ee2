// A faster decoder of Kafka record batches (message format v2, every batch a fetch returns),
// put in place of kafkajs's own for its fetch path. kafkajs 2.2.4 (its last release, pinned by
// the lockfile) decodes each record through two Decoder objects, 64-bit Long objects for the
// timestamp and offset (parsed back from strings per record) and a header array folded by
// spreading: about 1.5 KB allocated and 2 µs per message (bench/kafka-decode.ts, uncompressed),
// for an object that holds two buffer views and two strings. This one reads the same
// bytes straight from the buffer and gives records with the same fields and values
// (test/kafka/record-batch-decoder.unit.test.ts compares both on encoded batches), with Numbers
// where they are exact and BigInt where they are not. Each record reads its fields from the bytes
// when they are asked for (LazyRecord): a fetch's records all live until the consumer has handed
// them over, through several young-generation collections that copy every object they hold, and
// a record that holds its batch and its position is one small object instead of six. A compressed batch that cannot be
// decoded (no codec for it, bytes that do not decompress) becomes one dead letter
// (undecodable-batch.ts) instead of failing the fetch; kafkajs's decoder would fail the fetch
// for ever, or read a codec id it does not know (5-7) as no compression.
import { createRequire } from 'node:module';
import type { KafkaMessage } from 'kafkajs';
import { codecLabel, compressionCodec, COMPRESSION_CODEC_MASK } from './compression-codecs.js';
import { undecodableBatchMessage } from './undecodable-batch.js';

const require = createRequire(import.meta.url);

/** The part of a kafkajs Decoder this module uses: the fetch response's buffer and the read position. */
export interface FetchDecoder {
  buffer: Buffer;
  offset: number;
}

export interface RecordBatchContext {
  firstOffset: string;
  firstTimestamp: string;
  partitionLeaderEpoch: number;
  inTransaction: boolean;
  isControlBatch: boolean;
  lastOffsetDelta: number;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  maxTimestamp: string;
  timestampType: number;
}

export type DecodedRecordBatch = RecordBatchContext & { records: KafkaMessage[] };
export type RecordBatchDecoder = (decoder: FetchDecoder) => Promise<DecodedRecordBatch>;

const KAFKAJS_VERSION = '2.2.4';
const DECODER_MODULE = 'kafkajs/src/protocol/recordBatch/v0/decoder.js';
const FETCH_MODULE = 'kafkajs/src/protocol/requests/fetch/v4/decodeMessages.js';

const TIMESTAMP_TYPE_FLAG_MASK = 0x8;
const TRANSACTIONAL_FLAG_MASK = 0x10;
const CONTROL_FLAG_MASK = 0x20;
const CREATE_TIME = 0;
const LOG_APPEND_TIME = 1;
/** Bytes from the batch's first field after its length to its record count. */
const HEADER_BYTES = 4 + 1 + 4 + 2 + 4 + 8 + 8 + 8 + 2 + 4;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const { KafkaJSPartialMessageError } = require('kafkajs/src/errors.js') as { KafkaJSPartialMessageError: new (message: string) => Error };

/** Decodes the record batch at the decoder's position and moves it past the batch, as kafkajs's decoder does. */
export async function decodeRecordBatch(fetchDecoder: FetchDecoder): Promise<DecodedRecordBatch> {
  const source = fetchDecoder.buffer;
  const at = fetchDecoder.offset;
  const firstOffsetBig = source.readBigInt64BE(at);
  const length = source.readInt32BE(at + 8);
  const batch = source.subarray(at + 12, at + 12 + length);
  fetchDecoder.offset = at + 12 + length;
  if (batch.length < length) {
    throw new KafkaJSPartialMessageError(`Tried to decode a partial record batch: remainingBytes(${batch.length}) < recordBatchLength(${length})`);
  }
  const partitionLeaderEpoch = batch.readInt32BE(0);
  const magicByte = batch.readInt8(4);
  const attributes = batch.readInt16BE(9);
  const lastOffsetDelta = batch.readInt32BE(11);
  const firstTimestampBig = batch.readBigInt64BE(15);
  const maxTimestamp = batch.readBigInt64BE(23).toString();
  const producerId = batch.readBigInt64BE(31).toString();
  const producerEpoch = batch.readInt16BE(39);
  const firstSequence = batch.readInt32BE(41);
  const context: RecordBatchContext = {
    firstOffset: firstOffsetBig.toString(),
    firstTimestamp: firstTimestampBig.toString(),
    partitionLeaderEpoch,
    inTransaction: (attributes & TRANSACTIONAL_FLAG_MASK) > 0,
    isControlBatch: (attributes & CONTROL_FLAG_MASK) > 0,
    lastOffsetDelta,
    producerId,
    producerEpoch,
    firstSequence,
    maxTimestamp,
    timestampType: (attributes & TIMESTAMP_TYPE_FLAG_MASK) > 0 ? LOG_APPEND_TIME : CREATE_TIME,
  };
  const batchContext = { ...context, magicByte };
  const count = batch.readInt32BE(HEADER_BYTES);
  const codecId = attributes & COMPRESSION_CODEC_MASK;
  let records: KafkaMessage[];
  if (codecId === 0) records = count === -1 ? [] : decodeRecords(batch, HEADER_BYTES + 4, count, batchContext, firstOffsetBig, firstTimestampBig);
  else if (count <= 0) records = [];
  else records = await decodeCompressed(batch, codecId, count, batchContext, firstOffsetBig, firstTimestampBig);
  return { ...context, records };
}

/** The records of a compressed batch, or one placeholder for them all when they cannot be read. */
async function decodeCompressed(
  batch: Buffer,
  codecId: number,
  count: number,
  ctx: RecordBatchContext & { magicByte: number },
  firstOffset: bigint,
  firstTimestamp: bigint,
): Promise<KafkaMessage[]> {
  try {
    const decompressed = await compressionCodec(codecId).decompress(batch.subarray(HEADER_BYTES + 4));
    return decodeRecords(decompressed, 0, count, ctx, firstOffset, firstTimestamp);
  } catch (error) {
    const fields = { magicByte: ctx.magicByte, attributes: 0, timestamp: ctx.maxTimestamp, isControlRecord: ctx.isControlBatch, batchContext: ctx };
    return [undecodableBatchMessage({ firstOffset, lastOffsetDelta: ctx.lastOffsetDelta, count, codec: codecLabel(codecId), error, fields })];
  }
}

/** Reads `count` records from buf at `start`: each is a length-prefixed record of format v2. */
function decodeRecords(
  buf: Buffer,
  start: number,
  count: number,
  ctx: RecordBatchContext & { magicByte: number },
  firstOffset: bigint,
  firstTimestamp: bigint,
): KafkaMessage[] {
  const out: KafkaMessage[] = new Array(count);
  const cursor = { buf, pos: start };
  const source: RecordSource = {
    buf,
    ctx,
    offsetBase: new Int64Base(firstOffset),
    timestampBase: new Int64Base(firstTimestamp),
    appendTime: ctx.timestampType === LOG_APPEND_TIME && ctx.maxTimestamp ? ctx.maxTimestamp : null,
  };
  for (let i = 0; i < count; i++) {
    const length = readVarInt(cursor);
    if (length < 0 || cursor.pos + length > buf.length) throw new KafkaJSPartialMessageError(`Tried to decode a partial record: ${length} bytes at ${cursor.pos} of ${buf.length}`);
    out[i] = new LazyRecord(source, cursor.pos) as unknown as KafkaMessage;
    // The next record starts after this one's length, whatever its fields take.
    cursor.pos += length;
  }
  return out;
}

/** The fields of a record, in the order kafkajs's decoder sets them. */
export const RECORD_FIELDS = ['magicByte', 'attributes', 'timestamp', 'offset', 'key', 'value', 'headers', 'isControlRecord', 'batchContext'] as const;

/** What the records of one batch share: its bytes, its context and the bases of their deltas. */
interface RecordSource {
  buf: Buffer;
  ctx: RecordBatchContext & { magicByte: number };
  offsetBase: Int64Base;
  timestampBase: Int64Base;
  appendTime: string | null;
}

/**
 * A record of format v2, read from its bytes field by field when asked (attributes, timestamp
 * delta, offset delta, key, value, headers follow each other): the values kafkajs's decoder
 * gives, each made anew at each read, so nothing but its batch and its position is kept.
 */
class LazyRecord {
  constructor(
    private readonly src: RecordSource,
    /** Where its attributes byte is. */
    private readonly at: number,
  ) {}

  get magicByte(): number {
    return this.src.ctx.magicByte;
  }

  get attributes(): number {
    return this.src.buf.readInt8(this.at);
  }

  get timestamp(): string {
    const c = { buf: this.src.buf, pos: this.at + 1 };
    const delta = readVarLong(c);
    return this.src.appendTime ?? this.src.timestampBase.plus(delta);
  }

  get offset(): string {
    const c = { buf: this.src.buf, pos: this.at + 1 };
    readVarLong(c);
    return this.src.offsetBase.plus(readVarInt(c));
  }

  get key(): Buffer | null {
    return readVarIntBytes(this.afterOffset());
  }

  get value(): Buffer | null {
    const c = this.afterOffset();
    skipVarIntBytes(c);
    return readVarIntBytes(c);
  }

  get headers(): Headers {
    const c = this.afterOffset();
    skipVarIntBytes(c);
    skipVarIntBytes(c);
    return readHeaders(c);
  }

  get isControlRecord(): boolean {
    return this.src.ctx.isControlBatch;
  }

  get batchContext(): RecordBatchContext & { magicByte: number } {
    return this.src.ctx;
  }

  /** A cursor at the record's key. */
  private afterOffset(): Cursor {
    const c = { buf: this.src.buf, pos: this.at + 1 };
    readVarLong(c);
    readVarInt(c);
    return c;
  }
}

interface Cursor {
  buf: Buffer;
  pos: number;
}

/** A zigzag varint of up to 32 bits, computed as kafkajs computes it. */
function readVarInt(c: Cursor): number {
  let result = 0;
  let shift = 0;
  let byte: number;
  do {
    byte = c.buf[c.pos++];
    result += (byte & 0x7f) << shift;
    shift += 7;
  } while (byte >= 0x80);
  return (result >>> 1) ^ -(result & 1);
}

/** A zigzag varint of up to 64 bits: a Number when it is exact (up to 7 bytes), else a BigInt. */
function readVarLong(c: Cursor): number | bigint {
  const start = c.pos;
  let result = 0;
  let scale = 1;
  let byte: number;
  do {
    byte = c.buf[c.pos++];
    result += (byte & 0x7f) * scale;
    scale *= 128;
  } while (byte >= 0x80 && c.pos - start < 7);
  if (byte < 0x80) return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
  // Longer than 49 bits: again, exactly.
  c.pos = start;
  let big = 0n;
  let bits = 0n;
  do {
    if (bits > 63n) throw new Error('Invalid Long, must contain 9 bytes or less');
    byte = c.buf[c.pos++];
    big += BigInt(byte & 0x7f) << bits;
    bits += 7n;
  } while (byte >= 0x80);
  big = BigInt.asUintN(64, big);
  return BigInt.asIntN(64, (big >> 1n) ^ -(big & 1n));
}

/**
 * A batch's first offset or timestamp, to which each record adds its delta: the sum in decimal,
 * unbounded as kafkajs's BigInt-backed Long adds, in Numbers while they are exact.
 */
class Int64Base {
  private readonly exact: number | null;
  constructor(private readonly base: bigint) {
    this.exact = base <= SAFE && base >= -SAFE ? Number(base) : null;
  }

  plus(delta: number | bigint): string {
    if (this.exact !== null && typeof delta === 'number') {
      const n = this.exact + delta;
      if (Math.abs(n) <= Number.MAX_SAFE_INTEGER) return String(n);
    }
    return (this.base + BigInt(delta)).toString();
  }
}

function skipVarIntBytes(c: Cursor): void {
  const length = readVarInt(c);
  if (length > 0) c.pos += length;
}

function readVarIntBytes(c: Cursor): Buffer | null {
  const length = readVarInt(c);
  if (length === -1) return null;
  const bytes = c.buf.subarray(c.pos, c.pos + length);
  c.pos += length;
  return bytes;
}

type Headers = Record<string, Buffer | null | (Buffer | null)[]>;

/** Record headers folded as kafkajs folds them: a repeated key becomes an array of its values. */
function readHeaders(c: Cursor): Headers {
  const count = readVarInt(c);
  const headers: Headers = {};
  for (let i = 0; i < count; i++) {
    const keyLength = readVarInt(c);
    let key: string | null = null;
    if (keyLength !== -1) {
      key = c.buf.toString('utf8', c.pos, c.pos + keyLength);
      c.pos += keyLength;
    }
    const value = readVarIntBytes(c);
    const name = String(key);
    const prev = headers[name];
    headers[name] = prev === undefined ? value : Array.isArray(prev) ? prev.concat([value]) : [prev, value];
  }
  return headers;
}

let original: RecordBatchDecoder | undefined;

/** kafkajs's own decoder (for comparison in tests and benchmarks). */
export function kafkajsRecordBatchDecoder(): RecordBatchDecoder {
  return original ?? (require(DECODER_MODULE) as RecordBatchDecoder);
}

/**
 * Puts decodeRecordBatch in place of kafkajs's record batch decoder, before kafkajs loads its
 * fetch path (it does on its first fetch, which is why this runs when the client module loads).
 * Leaves kafkajs as it is, and says so, when its version is not the one this was checked
 * against or its fetch path is already loaded with the old decoder.
 */
export function installRecordBatchDecoder(): { installed: boolean; reason?: string } {
  const version = (require('kafkajs/package.json') as { version: string }).version;
  if (version !== KAFKAJS_VERSION) return { installed: false, reason: `kafkajs ${version} is not ${KAFKAJS_VERSION}` };
  const path = require.resolve(DECODER_MODULE);
  const mod = require.cache[path];
  if (mod?.exports === decodeRecordBatch) return { installed: true };
  if (require.cache[require.resolve(FETCH_MODULE)]) return { installed: false, reason: 'kafkajs fetch path already loaded' };
  original = require(path) as RecordBatchDecoder;
  require.cache[path]!.exports = decodeRecordBatch;
  return { installed: true };
}
