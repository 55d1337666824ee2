// The run analyzer re-reads a run that is still going less and less often: the debounce is
// doubled for every analysis already made of it while it was going (a run streamed over
// minutes would otherwise be read back whole every debounce). Its run_end is analysed after
// the short delay; after that a late event starts again from the debounce. Real engine, the
// analyzer's own clock (nothing here depends on real time).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWriter, DEFAULT_WRITER_OPTIONS } from '../../ingest/batch-writer.js';
import { EventIngestor } from '../../ingest/event-ingestor.js';
import { loadPriceBook } from '../../ingest/load-prices.js';
import { RunAnalyzer, touchedRuns } from '../../ingest/analysis/run-analyzer.js';
import { openStorage, type Storage } from '../../storage/gateway.js';
import { migrate } from '../../storage/migrate.js';
import { newDataDir, removeDataDir } from '../helpers/test-server.js';

const DEBOUNCE = 60_000;
const DELAY = 30_000;
const T = Date.parse('2026-11-30T12:00:00Z');
const dir = newDataDir();
let storage: Storage;
let writer: BatchWriter;
let ingestor: EventIngestor;
let analyzer: RunAnalyzer;

beforeAll(async () => {
  storage = await openStorage({ dataDir: dir, database: 'default' });
  await migrate(storage);
  writer = new BatchWriter(storage, DEFAULT_WRITER_OPTIONS);
  ingestor = new EventIngestor(writer, loadPriceBook(), { maxTextChars: 32_768, defaultProject: 'p' });
  analyzer = new RunAnalyzer(storage, { delayMs: DELAY, debounceMs: DEBOUNCE, sweepMs: 3_600_000, idleTimeoutMs: 3_600_000, clock: () => T });
  ingestor.observe(analyzer.observer);
});

afterAll(async () => {
  await analyzer?.close();
  await writer?.close();
  await storage?.close();
  removeDataDir(dir);
});


describe('re-analysis of a run that is still going', () => {
  it('backs off by doubling, ends with the short delay at run_end, and starts over after it', async () => {
    await ingestor.ingest([{ ok: true, value: { type: 'run_start', project: 'p', run_id: 'going', ts: T } }]);
    await ingestor.ingest(Array.from({ length: 5 }, (_, i) => ({ ok: true as const, value: { type: 'step', project: 'p', run_id: 'going', step: i, ts: T } })));
    expect(analyzer.dueAt('p', 'going')).toBe(T + DEBOUNCE);
    for (const factor of [2, 4, 8, 16, 32, 32]) {
      await analyzer.drain();
      expect(analyzer.dueAt('p', 'going')).toBeUndefined();
      await ingestor.ingest([{ ok: true, value: { type: 'step', project: 'p', run_id: 'going', step: 10 + factor, ts: T } }]);
      expect(analyzer.dueAt('p', 'going')).toBe(T + factor * DEBOUNCE);
    }
    // Another run is not affected.
    await ingestor.ingest([{ ok: true, value: { type: 'step', project: 'p', run_id: 'other', step: 0, ts: T } }]);
    expect(analyzer.dueAt('p', 'other')).toBe(T + DEBOUNCE);
    // run_end: the short delay, whatever the back-off.
    await ingestor.ingest([{ ok: true, value: { type: 'run_end', project: 'p', run_id: 'going', ts: T, status: 'success' } }]);
    expect(analyzer.dueAt('p', 'going')).toBe(T + DELAY);
    await analyzer.drain();
    // Once analysed as ended, a late event waits the plain debounce again.
    await ingestor.ingest([{ ok: true, value: { type: 'step', project: 'p', run_id: 'going', step: 99, ts: T } }]);
    expect(analyzer.dueAt('p', 'going')).toBe(T + DEBOUNCE);
    expect(analyzer.analysed).toBeGreaterThanOrEqual(8);
  });
});

describe('what the analyzer takes from the ingest path', () => {
  it('keeps one entry per stretch of a run, marked ended by its run_end, and nothing of the events', () => {
    const ev = (type: string, run_id: string) => ({ type, project: 'p', run_id, text: 'x'.repeat(1000) }) as never;
    expect(touchedRuns([ev('step', 'a'), ev('tool_call', 'a'), ev('step', 'b'), ev('run_end', 'b'), ev('step', 'a')])).toEqual([
      { project: 'p', run_id: 'a', ended: false },
      { project: 'p', run_id: 'b', ended: true },
      { project: 'p', run_id: 'a', ended: false },
    ]);
  });

  it('marks a run dirty only once its events are stored', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held: Storage = Object.create(storage);
    held.insert = async (...args) => {
      await gate;
      await storage.insert(...args);
    };
    const heldWriter = new BatchWriter(held, DEFAULT_WRITER_OPTIONS);
    const heldIngestor = new EventIngestor(heldWriter, loadPriceBook(), { maxTextChars: 32_768, defaultProject: 'p' });
    heldIngestor.observe(analyzer.observer);
    try {
      const { stored } = heldIngestor.submit([{ ok: true, value: { type: 'step', project: 'p', run_id: 'held', step: 0, ts: T } }]);
      await new Promise((r) => setTimeout(r, 50));
      expect(analyzer.dueAt('p', 'held')).toBeUndefined();
      release();
      await stored;
      expect(analyzer.dueAt('p', 'held')).toBe(T + DEBOUNCE);
    } finally {
      release();
      await heldWriter.close();
    }
  });
});
