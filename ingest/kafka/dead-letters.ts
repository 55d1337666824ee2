// The dead-letter topic: a message that cannot be parsed or validated goes there with its
// original key, bytes and headers, plus headers saying why and where it came from.
import type { IHeaders, KafkaMessage, Message } from 'kafkajs';

export const DLQ_HEADERS = {
  error: 'trajscope-error',
  topic: 'trajscope-source-topic',
  partition: 'trajscope-source-partition',
  offset: 'trajscope-source-offset',
  failedAt: 'trajscope-failed-at',
} as const;

export interface DeadLetter {
  message: KafkaMessage;
  reason: string;
}

/** The DLQ message of a rejected source message. Pure. */
export function deadLetterMessage(d: DeadLetter, source: { topic: string; partition: number }, now = Date.now()): Message {
  const headers: IHeaders = { ...(d.message.headers ?? {}) };
  headers[DLQ_HEADERS.error] = d.reason.slice(0, 2_000);
  headers[DLQ_HEADERS.topic] = source.topic;
  headers[DLQ_HEADERS.partition] = String(source.partition);
  headers[DLQ_HEADERS.offset] = d.message.offset;
  headers[DLQ_HEADERS.failedAt] = new Date(now).toISOString();
  return { key: d.message.key, value: d.message.value, headers };
}
