// Reads real fixture files through the importers and collects what came out, for the tests.
import { fileURLToPath } from 'node:url';
import { eventSchema, type RawEvent } from '../../schemas/events.js';
import { readFileItems } from '../../ingest/importers/read-file.js';
import type { ImportedRun } from '../../ingest/importers/types.js';

export const REAL = fileURLToPath(new URL('../../../shared/fixtures/real/', import.meta.url));

export interface Converted {
  runs: ImportedRun[];
  skips: { where: string; reason: string }[];
  notes: string[];
  /** Contract errors of any event (must stay empty). */
  invalid: string[];
}

export async function convert(relPath: string): Promise<Converted> {
  const out: Converted = { runs: [], skips: [], notes: [], invalid: [] };
  for await (const item of readFileItems(REAL + relPath)) {
    if ('run' in item) {
      out.runs.push(item.run);
      for (const e of item.run.events) {
        const p = eventSchema.safeParse(e);
        if (!p.success) out.invalid.push(`${item.run.run_id} ${e.type}: ${p.error.message}`);
        if (e.run_id !== item.run.run_id) out.invalid.push(`${e.run_id} inside run ${item.run.run_id}`);
      }
    } else if ('skip' in item) out.skips.push(item.skip);
    else if ('note' in item) out.notes.push(item.note);
  }
  return out;
}

export const ofType = <T extends RawEvent['type']>(events: RawEvent[], type: T) =>
  events.filter((e): e is Extract<RawEvent, { type: T }> => e.type === type);

export const all = (c: Converted) => c.runs.flatMap((r) => r.events);
