// A fetched record batch whose records cannot be read (a codec we have no decoder for, or bytes
// that do not decompress) must not stop its partition: kafkajs would fail the fetch, and the
// consumer would restart on the same offset and fail again, for ever. The decoder puts
// one message in the batch's place instead, at its last offset, whose empty value stands for the
// reason: parseMessages makes it an ingest error with that reason, so it goes to the dead-letter
// topic (with the source topic, partition and offset headers) and the commit moves past the
// batch. The records stay in the source topic at the offsets the reason gives, to be read again
// once a decoder is in place. Their bytes are not copied into the dead letter: several such
// batches of one fetch could pass the broker's message size limit together, and a dead letter
// that cannot be sent would hold the partition as surely as the failed fetch did.
import type { KafkaMessage } from 'kafkajs';

/** Why each placeholder's value stands for an undecodable batch (keyed by the value buffer, unique to it). */
const reasons = new WeakMap<Buffer, string>();
let report: ((reason: string) => void) | undefined;

export interface UndecodableBatch {
  firstOffset: bigint;
  lastOffsetDelta: number;
  count: number;
  codec: string;
  error: unknown;
  /** Copied to the placeholder as a decoded record carries them. */
  fields: { magicByte: number; attributes: number; timestamp: string; isControlRecord: boolean; batchContext: unknown };
}

/** The message that stands for a record batch that could not be decoded (and reports it). */
export function undecodableBatchMessage(b: UndecodableBatch): KafkaMessage {
  const last = b.firstOffset + BigInt(b.lastOffsetDelta);
  const cause = b.error instanceof Error ? b.error.message : String(b.error);
  const reason = `record batch of offsets ${b.firstOffset}-${last} (${b.count} records, ${b.codec}) could not be decoded: ${cause}; its records are still in the topic at those offsets`;
  const value = Buffer.alloc(0);
  reasons.set(value, reason);
  report?.(reason);
  const { magicByte, attributes, timestamp, isControlRecord, batchContext } = b.fields;
  return { magicByte, attributes, timestamp, offset: last.toString(), key: null, value, headers: {}, isControlRecord, batchContext } as unknown as KafkaMessage;
}

/** The reason when `value` is the placeholder of an undecodable batch. */
export function undecodableBatchReason(value: Buffer | null): string | undefined {
  return value ? reasons.get(value) : undefined;
}

/** Where a line goes for each undecodable batch (the process's Kafka client sets its logger; the last one set wins). */
export function reportUndecodableBatchesTo(fn: (reason: string) => void): void {
  report = fn;
}
