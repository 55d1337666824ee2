// Turns the messages of a Kafka batch into ingest items: one JSON event per message. A message
// that is empty, not JSON or not a JSON object becomes a per-item error (it goes to the DLQ), and
// so does the placeholder of a record batch that could not be decoded (undecodable-batch.ts).
import type { KafkaMessage } from 'kafkajs';
import type { ParsedItem } from '../parse-body.js';
import { undecodableBatchReason } from './undecodable-batch.js';

/** Items of messages[start, end) (all of them by default), in order. */
export function parseMessages(messages: readonly KafkaMessage[], start = 0, end = messages.length): ParsedItem[] {
  const items: ParsedItem[] = new Array(end - start);
  for (let i = start; i < end; i++) items[i - start] = parseMessage(messages[i].value);
  return items;
}

export function parseMessage(value: Buffer | null): ParsedItem {
  if (!value || value.length === 0) {
    return { ok: false, error: undecodableBatchReason(value) ?? 'empty message: a message must carry one JSON event' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString('utf8'));
  } catch (err) {
    return { ok: false, error: `not valid JSON: ${(err as Error).message}` };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, error: 'a message must carry one JSON object (one event), not an array or a scalar' };
  }
  return { ok: true, value: parsed };
}
