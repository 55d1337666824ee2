// What the text indexes (0016) and the error templates (0017) cost at ingest: the same generated
// events inserted straight into a fresh embedded engine migrated up to before 0016, up to 0016,
// and with every migration, in batches of a given size, as the writer encodes them. Alternates
// the three `--repeat` times and prints events/s and the median insert time per table.
//   npx tsx bench/index-cost.ts [--events 200000] [--batch 50000] [--repeat 2]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { encodeTableRows, rowBinaryEncoders } from '../ingest/batch-writer.js';
import { eventsToRows, TABLE_COLUMNS, type TableName } from '../ingest/event-rows.js';
import { loadPriceBook } from '../ingest/load-prices.js';
import { normalizeEvent, type TrajEvent } from '../schemas/normalize-event.js';
import { openStorage } from '../storage/gateway.js';
import { loadMigrations, migrate } from '../storage/migrate.js';
import { benchEvents } from './bench-events.js';

const { values: args } = parseArgs({
  options: { events: { type: 'string', default: '200000' }, batch: { type: 'string', default: '50000' }, repeat: { type: 'string', default: '2' } },
});
const EVENTS = Number(args.events);
const BATCH = Number(args.batch);

const now = Date.now();
const events = benchEvents(EVENTS).map((e) => (normalizeEvent(e, { maxTextChars: 32768, defaultProject: 'bench', now }) as { event: TrajEvent }).event);
// A few events in a hundred fail, as real runs do (the error template is worked out for them only).
events.forEach((e, i) => {
  if (i % 37 === 0 && (e.type === 'step' || e.type === 'tool_call')) (e as { error?: unknown }).error = { type: 'ToolError', message: `Error: flight HAT${i % 997} not available on date 2024-05-13` };
});
const prices = loadPriceBook();
const batches: ReturnType<typeof eventsToRows>[] = [];
for (let i = 0; i < events.length; i += BATCH) batches.push(eventsToRows(events.slice(i, i + BATCH), { prices, runModel: () => undefined }));

const VARIANTS: [string, (name: string) => boolean][] = [
  ['before 0016', (n) => n < '0016'],
  ['text indexes (0016)', (n) => n < '0017'],
  ['and error templates (0017)', () => true],
];

async function once(label: string, keep: (name: string) => boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'trajscope-bench-index-'));
  const storage = await openStorage({ dataDir: dir, database: 'default' });
  try {
    await migrate(storage, loadMigrations().filter((m) => keep(m.name)));
    const encoders = await rowBinaryEncoders(storage);
    const times: Partial<Record<TableName, number[]>> = {};
    const t0 = performance.now();
    for (const b of batches) {
      for (const table of ['steps', 'tool_calls', 'scores', 'runs'] as TableName[]) {
        const rows = b.rows[table];
        if (!rows.length) continue;
        const t = performance.now();
        await storage.insert(table, encodeTableRows(table, rows, encoders[table]), undefined, TABLE_COLUMNS[table]);
        (times[table] ??= []).push(performance.now() - t);
      }
    }
    const rate = events.length / ((performance.now() - t0) / 1000);
    const medians = Object.entries(times).map(([t, ts]) => `${t} ${ts!.sort((x, y) => x - y)[ts!.length >> 1].toFixed(1)} ms`);
    console.log(`${label.padEnd(28)} ${Math.round(rate).toLocaleString('en-US').padStart(9)} events/s   median insert: ${medians.join(', ')}`);
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`${EVENTS.toLocaleString('en-US')} events (steps and tool calls, 1 in 37 failing), batches of ${BATCH.toLocaleString('en-US')}`);
for (let r = 0; r < Number(args.repeat); r++) for (const [label, keep] of VARIANTS) await once(label, keep);
