// Validates parsed items into events, keeping the index and reason of each rejected one. Pure
// (the clock comes in); shared by the in-process ingest path and the Kafka producer path.
import type { IngestResponse } from '../schemas/api.js';
import { normalizeEvent, type NormalizeOptions, type TrajEvent } from '../schemas/normalize-event.js';
import type { ParsedItem } from './parse-body.js';

export interface ValidItem {
  /** The raw value as received. */
  value: unknown;
  event: TrajEvent;
}

export function validateItems(
  items: readonly ParsedItem[],
  opts: NormalizeOptions,
): { valid: ValidItem[]; rejected: IngestResponse['rejected'] } {
  const valid: ValidItem[] = [];
  const rejected: IngestResponse['rejected'] = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (!item.ok) {
      rejected.push({ index, error: item.error });
      continue;
    }
    const r = normalizeEvent(item.value, opts);
    if (r.ok) valid.push({ value: item.value, event: r.event });
    else rejected.push({ index, error: r.error });
  }
  return { valid, rejected };
}
