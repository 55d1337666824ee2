// 0020_finer_granules.sql rebuilds steps and tool_calls with granules of 1,024 rows. Stopped after
// any of its statements (the process killed) and started again, it ends with the same rows,
// columns, comments and text indexes in tables of the new granularity, and no copy left behind.
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../storage/gateway.js';
import { loadMigrations, migrate } from '../../storage/migrate.js';
import { EMPTY_FILTERS } from '../../storage/queries/run-filters.js';
import { searchRuns } from '../../storage/queries/search-queries.js';
import { newDataDir, removeDataDir } from '../helpers/test-server.js';

const REBUILD = '0020_finer_granules.sql';
const TABLES = ['steps', 'tool_calls'] as const;
const ts = '2026-12-01 10:00:00.000';
const dirs: string[] = [];
let open: Storage | undefined;

afterAll(async () => {
  await open?.close();
  for (const d of dirs) removeDataDir(d);
});

/** The migrations up to the rebuild, itself included. */
const upToRebuild = () => loadMigrations().filter((m) => m.name <= REBUILD);

/**
 * A database migrated up to the rebuild, holding steps and tool calls (one step delivered twice),
 * in a data folder of its own (the one before is closed: one data folder per process).
 */
async function before(): Promise<Storage> {
  await open?.close();
  const dir = newDataDir();
  dirs.push(dir);
  const storage = await openStorage({ dataDir: dir, database: 'default' });
  open = storage;
  await migrate(storage, loadMigrations().filter((m) => m.name < REBUILD));
  const steps = Array.from({ length: 3000 }, (_, i) => ({
    project: 'p', run_id: `run-${i % 30}`, step: Math.floor(i / 30), ts,
    action: `open file ${i}`, observation: i === 1234 ? 'the quokka smiled' : `output ${i}`,
    error_message: i % 100 === 7 ? `KeyError: 'user_${i}' at /srv/app/main.py line ${i}` : '',
  }));
  await storage.insert('steps', steps);
  await storage.insert('steps', [steps[5]!]); // delivered twice: a second part
  await storage.insert('tool_calls', Array.from({ length: 2000 }, (_, i) => ({
    project: 'p', run_id: `run-${i % 30}`, step: Math.floor(i / 30), call_id: `c${i}`, ts, tool: 'bash',
    arguments: `{"cmd":"ls ${i}"}`, output: '', status: i % 50 === 3 ? 'error' : 'ok', error_message: i % 50 === 3 ? `exit code ${i}` : '',
  })));
  return storage;
}

/**
 * What must survive the rebuild, table by table: every row as FINAL reads it (the copy collapses
 * a row delivered twice, as a merge does; what any query reads is the same), its materialized
 * error template, the table's comment and its text indexes.
 */
async function contents(storage: Storage) {
  const out: Record<string, unknown> = {};
  for (const t of TABLES) {
    out[t] = await storage.query(
      `SELECT count() AS rows, sum(cityHash64(formatRow('TSV', *))) AS rows_hash, arraySort(groupUniqArray(error_template)) AS templates,
              (SELECT comment FROM system.tables WHERE database = currentDatabase() AND name = '${t}') AS comment,
              (SELECT arraySort(groupArray(name)) FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = '${t}') AS indexes
       FROM ${t} FINAL`,
    );
  }
  return out;
}

async function granularity(storage: Storage): Promise<Record<string, string>> {
  const rows = await storage.query<{ name: string; g: string }>(
    `SELECT name, extract(engine_full, 'index_granularity = [0-9]+') AS g FROM system.tables
     WHERE database = currentDatabase() AND (name IN ('steps', 'tool_calls') OR name LIKE '%\\_0020')`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.g]));
}

describe('0020_finer_granules.sql', () => {
  const rebuild = loadMigrations().find((m) => m.name === REBUILD)!;

  it('copies both tables into granules of 1,024 rows, losing nothing', async () => {
    const storage = await before();
    const was = await contents(storage);
    expect(await granularity(storage)).toEqual({ steps: 'index_granularity = 8192', tool_calls: 'index_granularity = 8192' });
    expect(await migrate(storage, upToRebuild())).toEqual([REBUILD]);
    expect(await granularity(storage)).toEqual({ steps: 'index_granularity = 1024', tool_calls: 'index_granularity = 1024' });
    expect(await contents(storage)).toEqual(was);
    const found = await searchRuns(storage, { ...EMPTY_FILTERS, project: ['p'] }, { text: 'quokka', mode: 'words', field: 'all', sort: 'time', limit: 10, offset: 0 });
    expect(found.runs.map((r) => [r.run_id, r.matches.map((m) => m.step)])).toEqual([['run-4', [41]]]);
  });

  // Statements 1-5 rebuild steps (drop a copy left over, create the copy, fill it, exchange,
  // drop the old table), 6-10 tool_calls: stopped with an empty copy, a full one, after the
  // exchange (the old table still there under the copy's name) and half way through tool_calls.
  it.each([2, 3, 4, 8])('started again after stopping at statement %i, ends as if it had run once', async (stopAfter) => {
    expect(rebuild.statements).toHaveLength(10);
    const storage = await before();
    const was = await contents(storage);
    for (const statement of rebuild.statements.slice(0, stopAfter)) await storage.command(statement);
    expect(await migrate(storage, upToRebuild())).toEqual([REBUILD]);
    expect(await granularity(storage)).toEqual({ steps: 'index_granularity = 1024', tool_calls: 'index_granularity = 1024' });
    expect(await contents(storage)).toEqual(was);
  });
});
