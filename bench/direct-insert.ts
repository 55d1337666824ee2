// The ingest benchmarks' yardstick: the same rows inserted straight into a fresh embedded engine
// (no Kafka, no HTTP, no validation), in batches of a given number of events, encoded as the
// writer encodes them in the format given (runs rows always as JSON). Returns events/s.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTableRows, rowBinaryEncoders } from '../ingest/batch-writer.js';
import { eventsToRows, TABLE_COLUMNS, type TableName } from '../ingest/event-rows.js';
import { loadPriceBook } from '../ingest/load-prices.js';
import { normalizeEvent, type TrajEvent } from '../schemas/normalize-event.js';
import { openStorage } from '../storage/gateway.js';
import { migrate } from '../storage/migrate.js';

export type InsertFormat = 'rowbinary' | 'json';

export async function directInsertRate(events: readonly Record<string, unknown>[], batchEvents: number, format: InsertFormat): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'trajscope-bench-direct-'));
  const storage = await openStorage({ dataDir: dir, database: 'default' });
  try {
    await migrate(storage);
    const encoders = format === 'rowbinary' ? await rowBinaryEncoders(storage) : {};
    const prices = loadPriceBook();
    const now = Date.now();
    const normalized = events.map((e) => (normalizeEvent(e, { maxTextChars: 32768, defaultProject: 'bench', now }) as { event: TrajEvent }).event);
    const batches = [];
    for (let i = 0; i < normalized.length; i += batchEvents) batches.push(eventsToRows(normalized.slice(i, i + batchEvents), { prices, runModel: () => undefined }));
    const t = performance.now();
    for (const b of batches) {
      for (const table of Object.keys(b.rows) as TableName[]) {
        const rows = b.rows[table];
        if (rows.length) await storage.insert(table, encodeTableRows(table, rows, encoders[table]), undefined, TABLE_COLUMNS[table]);
      }
    }
    return events.length / ((performance.now() - t) / 1000);
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
