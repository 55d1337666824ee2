// Migrations, restarts and the batching writer's retries on the real embedded engine.
import { afterAll, describe, expect, it } from 'vitest';
import { BackpressureError, BatchWriter, DEFAULT_WRITER_OPTIONS } from '../../ingest/batch-writer.js';
import { emptyRowBatch, TABLE_COLUMNS } from '../../ingest/event-rows.js';
import { EncodedRows, encodeRows, insertEncoded, openStorage, type Storage } from '../../storage/gateway.js';
import { loadMigrations, migrate } from '../../storage/migrate.js';
import { getJson, newDataDir, postEvents, removeDataDir, startTestServer } from '../helpers/test-server.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDataDir));

function stepRows(runId: string, n: number): object[] {
  return Array.from({ length: n }, (_, i) => ({ project: 'w', run_id: runId, step: i, event_id: `${runId}-${i}`, ts: 1_790_000_000_000 + i, input_tokens: 1, cost_usd: 0.25 }));
}

async function countSteps(storage: Storage, runId: string): Promise<{ n: number; cost: number }> {
  const [r] = await storage.query<{ n: string; cost: number }>(
    'SELECT count() AS n, sum(cost_usd) AS cost FROM steps WHERE project = {p:String} AND run_id = {r:String}',
    { p: 'w', r: runId },
  );
  return { n: Number(r.n), cost: Number(r.cost) };
}

/** A fresh data folder's migrated storage for `use`, closed afterwards. */
async function withStorage(use: (storage: Storage) => Promise<void>): Promise<void> {
  const dir = newDataDir();
  dirs.push(dir);
  const storage = await openStorage({ dataDir: dir, database: 'default' });
  try {
    await migrate(storage);
    await use(storage);
  } finally {
    await storage.close();
  }
}

describe('storage', () => {
  it('applies every migration on an empty folder once, and nothing on a re-run', async () => {
    const dir = newDataDir();
    dirs.push(dir);
    const storage = await openStorage({ dataDir: dir, database: 'default' });
    try {
      const names = loadMigrations().map((m) => m.name);
      expect(names.length).toBeGreaterThan(0);
      expect(await migrate(storage)).toEqual(names);
      expect(await migrate(storage)).toEqual([]);
      const tables = (await storage.query<{ name: string }>("SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name")).map((t) => t.name);
      expect(tables).toEqual(expect.arrayContaining(['runs', 'steps', 'tool_calls', 'scores', 'schema_migrations']));

      // A retried insert (the first attempt stored the rows but its answer was lost) stores them once.
      let failNext = true;
      const flaky: Storage = Object.create(storage);
      flaky.insert = async (table, rows, token, columns) => {
        await storage.insert(table, rows, token, columns);
        if (table === 'steps' && failNext) {
          failNext = false;
          throw new Error('connection reset after the insert');
        }
      };
      const errors: number[] = [];
      const writer = new BatchWriter(flaky, { ...DEFAULT_WRITER_OPTIONS, retryBaseMs: 5, onInsertError: (_t, attempt) => errors.push(attempt) });
      const batch = emptyRowBatch();
      batch.rows.steps = stepRows('retry-1', 500);
      await writer.add(batch);
      expect(errors).toEqual([1]);
      expect(await countSteps(storage, 'retry-1')).toEqual({ n: 500, cost: 125 });

      // Inserts that fail for a while are retried until storage is back; nothing is lost.
      let down = 3;
      flaky.insert = async (table, rows, token, columns) => {
        if (down-- > 0) throw new Error('storage down');
        await storage.insert(table, rows, token, columns);
      };
      const b2 = emptyRowBatch();
      b2.rows.steps = stepRows('retry-2', 300);
      await writer.add(b2);
      expect(await countSteps(storage, 'retry-2')).toEqual({ n: 300, cost: 75 });
      await writer.close();
    } finally {
      await storage.close();
    }
  });

  it('refuses rows beyond its bound with a backpressure error while storage is stuck', async () => {
    const dir = newDataDir();
    dirs.push(dir);
    const storage = await openStorage({ dataDir: dir, database: 'default' });
    await migrate(storage);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stuck: Storage = Object.create(storage);
    stuck.insert = async (table, rows, token, columns) => {
      await gate;
      await storage.insert(table, rows, token, columns);
    };
    const writer = new BatchWriter(stuck, { ...DEFAULT_WRITER_OPTIONS, maxBufferedRows: 1000 });
    const mk = (id: string, n: number) => {
      const b = emptyRowBatch();
      b.rows.steps = stepRows(id, n);
      return b;
    };
    const first = writer.add(mk('bp-1', 800));
    await new Promise((r) => setTimeout(r, 20));
    expect(() => writer.add(mk('bp-2', 300))).toThrow(BackpressureError);
    const second = writer.add(mk('bp-3', 150));
    release();
    await Promise.all([first, second]);
    await writer.close();
    expect((await countSteps(storage, 'bp-1')).n).toBe(800);
    expect((await countSteps(storage, 'bp-2')).n).toBe(0);
    expect((await countSteps(storage, 'bp-3')).n).toBe(150);
    await storage.close();
  });

  it('holds buffered rows as their encoded bytes and writes them in inserts of at most maxRows rows of a table, each batch whole', () =>
    withStorage(async (storage) => {
      const seen: { table: string; count: number }[] = [];
      const counting: Storage = Object.create(storage);
      counting.insert = async (table, rows, token, columns) => {
        expect(rows).toBeInstanceOf(EncodedRows); // the writer hands over bytes, not row objects
        seen.push({ table, count: (rows as EncodedRows).count });
        await storage.insert(table, rows, token, columns);
      };
      const writer = new BatchWriter(counting, { ...DEFAULT_WRITER_OPTIONS, maxRows: 100, maxAgeMs: 60_000 });
      const sizes = [60, 30, 45, 130, 5];
      let expectedBytes = 0;
      for (const [i, n] of sizes.entries()) {
        const b = emptyRowBatch();
        b.rows.steps = stepRows(`group-${i}`, n);
        expectedBytes += encodeRows(b.rows.steps, TABLE_COLUMNS.steps).length;
        await writer.add(b, false);
      }
      expect(writer.getStats()).toMatchObject({ bufferedRows: 270, bufferedBytes: expectedBytes });
      await writer.flush();
      // 60+30 fit in one insert, 45 starts the next, 130 (more than maxRows) goes alone, then 5.
      expect(seen.map((s) => s.count)).toEqual([90, 45, 130, 5]);
      for (const [i, n] of sizes.entries()) expect((await countSteps(storage, `group-${i}`)).n).toBe(n);
      expect(writer.getStats()).toMatchObject({ bufferedRows: 0, bufferedBytes: 0, rowsWritten: 270 });

      // The bound is per table: steps and tool calls of 90 + 90 rows go in one flush, each table
      // in one insert of 90, although the flush holds 180 rows.
      seen.length = 0;
      for (const [i, n] of [40, 50].entries()) {
        const b = emptyRowBatch();
        b.rows.steps = stepRows(`pair-${i}`, n);
        b.rows.tool_calls = Array.from({ length: n }, (_, k) => ({ project: 'w', run_id: `pair-${i}`, call_id: `c${k}`, step: k, event_id: `pc-${i}-${k}`, ts: 1_790_000_000_000 + k, tool: 'bash' }));
        await writer.add(b, false);
      }
      await writer.flush();
      expect(seen.sort((a, b) => a.table.localeCompare(b.table))).toEqual([{ table: 'steps', count: 90 }, { table: 'tool_calls', count: 90 }]);
      await writer.close();
    }));

  it('tells each caller once its own insert is done, not behind what came in while an earlier insert ran', () =>
    withStorage(async (storage) => {
      const gates = [0, 1, 2].map(() => {
        let open!: () => void;
        return { opened: new Promise<void>((r) => (open = r)), open };
      });
      const inserted: number[] = [];
      let calls = 0;
      const gated: Storage = Object.create(storage);
      gated.insert = async (table, rows, token, columns) => {
        await gates[Math.min(calls++, gates.length - 1)].opened;
        await storage.insert(table, rows, token, columns);
        inserted.push((rows as EncodedRows).count);
      };
      const writer = new BatchWriter(gated, { ...DEFAULT_WRITER_OPTIONS, maxRows: 100 });
      const mk = (id: string, n: number) => {
        const b = emptyRowBatch();
        b.rows.steps = stepRows(id, n);
        return b;
      };
      const settled: string[] = [];
      const a = writer.add(mk('wait-a', 60)).then(() => settled.push('a'));
      await new Promise((r) => setTimeout(r, 20)); // a's insert has started and is held
      const b = writer.add(mk('wait-b', 80)).then(() => settled.push('b'));
      const c = writer.add(mk('wait-c', 80)).then(() => settled.push('c'));
      gates[0].open();
      await a;
      gates[1].open();
      await b;
      // b went in an insert of its own (b + c would pass maxRows); c's insert is still held.
      expect(settled).toEqual(['a', 'b']);
      expect((await countSteps(storage, 'wait-c')).n).toBe(0);
      gates[2].open();
      await c;
      expect(inserted).toEqual([60, 80, 80]);
      expect((await countSteps(storage, 'wait-c')).n).toBe(80);
      await writer.close();
    }));

  it('inserts encoded rows through the client (the ClickHouse server path), deduplicated by token', () =>
    withStorage(async (storage) => {
      const rows = stepRows('via-client', 40);
      const payload = EncodedRows.join([
        new EncodedRows(encodeRows(rows.slice(0, 25), TABLE_COLUMNS.steps), 25),
        new EncodedRows(encodeRows(rows.slice(25), TABLE_COLUMNS.steps), 15),
      ]);
      expect(payload.count).toBe(40);
      const settings = { insert_deduplication_token: 'client-path-1' };
      await insertEncoded(storage.client, 'steps', payload, 'JSONCompactEachRow', TABLE_COLUMNS.steps, settings);
      await insertEncoded(storage.client, 'steps', payload, 'JSONCompactEachRow', TABLE_COLUMNS.steps, settings); // a retry
      // The token reaches the engine: other rows under the same token count as the same insert.
      const other = new EncodedRows(encodeRows(stepRows('same-token', 3), TABLE_COLUMNS.steps), 3);
      await insertEncoded(storage.client, 'steps', other, 'JSONCompactEachRow', TABLE_COLUMNS.steps, settings);
      const [raw] = await storage.query<{ n: string; other: string }>(
        "SELECT countIf(run_id = 'via-client') AS n, countIf(run_id = 'same-token') AS other FROM steps",
      );
      expect([Number(raw.n), Number(raw.other)]).toEqual([40, 0]);
      await insertEncoded(storage.client, 'steps', other, 'JSONCompactEachRow', TABLE_COLUMNS.steps, { insert_deduplication_token: 'client-path-2' });
      expect((await countSteps(storage, 'same-token')).n).toBe(3);
      expect(await countSteps(storage, 'via-client')).toEqual({ n: 40, cost: 10 });
      const runs = [{ project: 'w', run_id: 'via-client', first_event_at: 1_790_000_000_000, last_event_at: 1_790_000_000_039 }];
      await insertEncoded(storage.client, 'runs', new EncodedRows(encodeRows(runs), 1), 'JSONEachRow', undefined, undefined);
      const [run] = await storage.query<{ n: string }>("SELECT count() AS n FROM runs WHERE run_id = 'via-client'");
      expect(Number(run.n)).toBe(1);
    }));

  it('stores every value of a payload as sent: separators, brackets, quotes, newlines and unicode, in both row shapes, also when the engine parses it in parallel', () =>
    withStorage(async (storage) => {
      const tricky = ['],[', '},{', '"quoted", [1,2]', 'line 1\nline 2\r\n\ttab', 'é 🙂 \u2028 \\ back'];
      // About 25 MB: above the size from which the engine splits the payload between threads.
      const steps = Array.from({ length: 20_000 }, (_, i) => [
        'enc', `run-${i % 7}`, i, `e-${i}`, 1_790_000_000_000 + i, 'gpt-4o', i, 1, 0, 0, 0, 0.5, false, null,
        `${tricky[i % tricky.length]} ${i}`, `${tricky[(i + 1) % tricky.length]}`.repeat(1 + (i % 300)), '', tricky[(i + 2) % tricky.length], false, '{}', 0, '', '',
      ]);
      await storage.insert('steps', steps, undefined, TABLE_COLUMNS.steps);
      const scores = tricky.map((t, i) => ({ project: 'enc', run_id: 'run-0', name: `n${i}`, source: 'verifier', event_id: `s${i}`, ts: 1_790_000_000_000, value: i, comment: t }));
      await storage.insert('scores', scores);
      const back = await storage.query<{ step: number; action: string; observation: string; error_message: string }>(
        'SELECT step, action, observation, error_message FROM steps WHERE project = {p:String} ORDER BY step',
        { p: 'enc' },
      );
      expect(back).toHaveLength(steps.length);
      expect(back.every((r, i) => r.step === i && r.action === steps[i][14] && r.observation === steps[i][15] && r.error_message === steps[i][17])).toBe(true);
      const comments = await storage.query<{ comment: string }>('SELECT comment FROM scores WHERE project = {p:String} ORDER BY name', { p: 'enc' });
      expect(comments.map((c) => c.comment)).toEqual(tricky);
    }));

  it('does not hold an insert behind a long read (embedded: inserts have a connection of their own)', async () => {
    const dir = newDataDir();
    dirs.push(dir);
    const storage = await openStorage({ dataDir: dir, database: 'default' });
    let read: Promise<string> | undefined;
    try {
      await migrate(storage);
      // A read of about a second, started first; the insert is asked for right after it.
      read = storage.query('SELECT count() AS n FROM numbers(20000000) WHERE sipHash64(number) % 7 = 1').then(() => 'read');
      const insert = storage.insert('steps', stepRows('beside-read', 100)).then(() => 'insert');
      expect(await Promise.race([read, insert])).toBe('insert');
      expect((await countSteps(storage, 'beside-read')).n).toBe(100);
    } finally {
      await read?.catch(() => {}); // closing under a running statement would hold the folder
      await storage.close();
    }
  });

  it('keeps every run when the server restarts on the same data folder', async () => {
    const dir = newDataDir();
    dirs.push(dir);
    let srv = await startTestServer({}, dir);
    const evs = Array.from({ length: 5 }, (_, i) => [
      { type: 'run_start', run_id: `keep-${i}`, ts: '2026-11-01T00:00:00Z', model: 'gpt-4o' },
      { type: 'step', run_id: `keep-${i}`, step: 0, ts: '2026-11-01T00:00:01Z', input_tokens: 10 },
      { type: 'run_end', run_id: `keep-${i}`, ts: '2026-11-01T00:01:00Z', status: 'success' },
    ]).flat();
    expect((await postEvents(srv.url, evs)).status).toBe(200);
    await srv.close();
    srv = await startTestServer({}, dir);
    try {
      const { body } = await getJson(srv.url, '/api/v1/runs?limit=100');
      expect(body.runs.map((r: { run_id: string }) => r.run_id).sort()).toEqual(['keep-0', 'keep-1', 'keep-2', 'keep-3', 'keep-4']);
      expect(body.runs.every((r: { status: string; steps: number }) => r.status === 'success' && r.steps === 1)).toBe(true);
    } finally {
      await srv.close();
    }
  });
});
