// The run analyzer reads runs back in batches bounded in runs and in rows (a batch of long runs
// must not be read into memory at once), and a failed batch loses no run: what the pass did not
// analyse is dirty again. Real engine; the storage is wrapped only to watch its reads and to
// make one of them fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWriter, DEFAULT_WRITER_OPTIONS } from '../../ingest/batch-writer.js';
import { EventIngestor } from '../../ingest/event-ingestor.js';
import { loadPriceBook } from '../../ingest/load-prices.js';
import { RunAnalyzer } from '../../ingest/analysis/run-analyzer.js';
import { openStorage, type QueryParams, type Storage } from '../../storage/gateway.js';
import { migrate } from '../../storage/migrate.js';
import { newDataDir, removeDataDir } from '../helpers/test-server.js';

const T = Date.parse('2026-11-30T12:00:00Z');
const DEBOUNCE = 60_000;
const dir = newDataDir();
const RUNS = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
let storage: Storage;
let writer: BatchWriter;
/** Runs of each step read-back, in order. */
const reads: number[] = [];
/** Step read-backs to let through before one fails (-1: none fails). */
let failAfter = -1;

beforeAll(async () => {
  storage = await openStorage({ dataDir: dir, database: 'default' });
  await migrate(storage);
  writer = new BatchWriter(storage, DEFAULT_WRITER_OPTIONS);
  const ingestor = new EventIngestor(writer, loadPriceBook(), { maxTextChars: 32_768, defaultProject: 'p' });
  // Each run: 3 steps of one call each, 6 rows.
  const events = RUNS.flatMap((run_id) =>
    [0, 1, 2].flatMap((step) => [
      { type: 'step', project: 'p', run_id, step, ts: T + step, action: `ls ${step}`, observation: `out ${step}` },
      { type: 'tool_call', project: 'p', run_id, step, call_id: `${run_id}-${step}`, ts: T + step, tool: 'bash', arguments: { cmd: `ls ${step}` }, status: 'ok', output: `out ${step}` },
    ]),
  );
  await ingestor.ingest(events.map((value) => ({ ok: true as const, value })), { wait: true });
});

afterAll(async () => {
  await writer?.close();
  await storage?.close();
  removeDataDir(dir);
});

function watchedAnalyzer(onError?: (err: unknown) => void): RunAnalyzer {
  const watched: Storage = Object.create(storage);
  watched.query = async <T,>(sql: string, params?: QueryParams, settings?: never): Promise<T[]> => {
    if (sql.includes('groupArray(step) AS step')) {
      if (failAfter === 0) {
        failAfter = -1;
        throw new Error('injected read failure');
      }
      if (failAfter > 0) failAfter--;
      reads.push((params?.ids as string[]).length);
    }
    return storage.query<T>(sql, params, settings);
  };
  return new RunAnalyzer(watched, { delayMs: 0, debounceMs: DEBOUNCE, sweepMs: 3_600_000, idleTimeoutMs: 3_600_000, batchRows: 13, clock: () => T, onError });
}

const analysedRuns = async () =>
  (await storage.query<{ run_id: string }>(`SELECT run_id FROM run_analysis FINAL WHERE project = 'p' ORDER BY run_id`)).map((r) => r.run_id);

describe('read-back batches of the run analyzer', () => {
  it('reads at most the rows bound per batch (two runs of six rows under 13) and analyses every run', async () => {
    const analyzer = watchedAnalyzer();
    reads.length = 0;
    analyzer.markDue(RUNS.map((run_id) => ({ project: 'p', run_id })));
    await analyzer.drain();
    expect(reads).toEqual([2, 2, 2]);
    expect(analyzer.analysed).toBe(6);
    expect(await analysedRuns()).toEqual(RUNS);
    await analyzer.close();
  });

  it('puts back every run a failed pass did not analyse, and a later pass analyses them', async () => {
    const errors: unknown[] = [];
    const analyzer = watchedAnalyzer((e) => errors.push(e));
    reads.length = 0;
    failAfter = 1;
    analyzer.markDue(RUNS.map((run_id) => ({ project: 'p', run_id })));
    await analyzer.drain();
    expect(reads).toEqual([2]);
    expect(analyzer.analysed).toBe(2);
    expect(analyzer.failures).toBe(1);
    expect(String(errors[0])).toContain('injected read failure');
    expect(analyzer.pending).toBe(4);
    for (const run_id of ['r3', 'r4', 'r5', 'r6']) expect(analyzer.dueAt('p', run_id)).toBe(T + DEBOUNCE);
    await analyzer.drain();
    expect(analyzer.analysed).toBe(6);
    expect(analyzer.pending).toBe(0);
    await analyzer.close();
  });
});
