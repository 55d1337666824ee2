// The text indexes of steps and tool calls (0016_text_indexes.sql): a words or phrase search
// reads through them (the engine's plan names them), and finds what a case-insensitive whole-word
// match finds, in rows stored after the migration and before it (whether or not the migration's
// background indexing has reached them yet).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type QueryParams, type Storage } from '../../storage/gateway.js';
import { loadMigrations, migrate } from '../../storage/migrate.js';
import { EMPTY_FILTERS } from '../../storage/queries/run-filters.js';
import { matchedSql, searchRuns, type SearchOptions } from '../../storage/queries/search-queries.js';
import { newDataDir, removeDataDir } from '../helpers/test-server.js';

const dir = newDataDir();
let storage: Storage;
const filters = { ...EMPTY_FILTERS, project: ['p'] };
const options = (text: string, mode: SearchOptions['mode']): SearchOptions => ({ text, mode, field: 'all', sort: 'time', limit: 10, offset: 0 });
const ts = '2026-12-01 10:00:00.000';

beforeAll(async () => {
  storage = await openStorage({ dataDir: dir, database: 'default' });
  // Rows stored by the schema before the indexes.
  await migrate(storage, loadMigrations().filter((m) => m.name < '0016'));
  await storage.insert('steps', [
    { project: 'p', run_id: 'old-1', step: 0, ts, action: 'open', observation: 'The ZEBRA Crossed the road' },
    { project: 'p', run_id: 'old-2', step: 0, ts, action: 'Straße prüfen', observation: 'nothing here' },
  ]);
  await storage.insert('tool_calls', [{ project: 'p', run_id: 'old-3', step: 0, call_id: 'c1', ts, tool: 'bash', arguments: '{"cmd":"git log --all"}', output: '' }]);
  expect(await migrate(storage)).toContain('0016_text_indexes.sql');
  await storage.insert('steps', [{ project: 'p', run_id: 'new-1', step: 3, ts, action: 'zebra-crossed', observation: '' }]);
  // A step delivered twice (two inserts: two parts until the engine merges them).
  for (let i = 0; i < 2; i++) await storage.insert('steps', [{ project: 'p', run_id: 'twice', step: 1, ts, action: 'retry', observation: 'flaky quokka' }]);
  // A step whose action and observation both hold the word.
  await storage.insert('steps', [{ project: 'p', run_id: 'both', step: 2, ts, action: 'find the echidna', observation: 'an Echidna here' }]);
  // One run id in two projects, each with its own match.
  await storage.insert('steps', [
    { project: 'p', run_id: 'same-id', step: 0, ts, action: 'one', observation: 'wombat in p' },
    { project: 'q', run_id: 'same-id', step: 5, ts, action: 'two', observation: 'wombat in q' },
  ]);
});
afterAll(async () => {
  await storage?.close();
  removeDataDir(dir);
});

const found = async (text: string, mode: SearchOptions['mode']) => (await searchRuns(storage, filters, options(text, mode))).runs.map((r) => r.run_id).sort();

describe('text indexes', () => {
  it('find rows stored before the migration and after it, in any case, as whole words', async () => {
    expect(await found('zebra CROSSED', 'words')).toEqual(['new-1', 'old-1']);
    expect(await found('zebr', 'words')).toEqual([]);
    expect(await found('STRASSE', 'words')).toEqual([]);
    expect(await found('straße', 'words')).toEqual(['old-2']);
    expect(await found('PRÜFEN', 'words')).toEqual(['old-2']);
    expect(await found('git log --all', 'phrase')).toEqual(['old-3']);
    expect(await found('log git', 'phrase')).toEqual([]);
    expect(await found('zebra crossed', 'phrase')).toEqual(['old-1']); // "zebra-crossed" is not the phrase
  });

  it('count a step delivered twice once, and keep runs of one id in two projects apart', async () => {
    const twice = await searchRuns(storage, filters, options('quokka', 'words'));
    expect(twice).toMatchObject({ total_runs: 1, total_hits: 1 });
    expect(twice.runs[0].matches).toHaveLength(1);
    // A step matching in two fields is one hit, listed once by its first field.
    for (const mode of ['words', 'phrase', 'substring', 'regex'] as const) {
      const two = await searchRuns(storage, filters, options(mode === 'regex' ? '(?i)echidna' : mode === 'substring' ? 'chidna' : 'echidna', mode));
      expect(two, mode).toMatchObject({ total_runs: 1, total_hits: 1 });
      expect(two.runs[0].matches.map((m) => [m.step, m.field]), mode).toEqual([[2, 'action']]);
    }
    const both = await searchRuns(storage, { ...filters, project: ['p', 'q'] }, options('wombat', 'words'));
    expect(both.total_runs).toBe(2);
    expect(both.runs.map((r) => [r.project, r.hits, r.matches.map((m) => [m.step, m.snippet])]).sort()).toEqual([
      ['p', 1, [[0, 'wombat in p']]],
      ['q', 1, [[5, 'wombat in q']]],
    ]);
  });

  it('are built when parts merge, not on insert, and find the same rows before and after', async () => {
    const indexBytes = async () =>
      (await storage.query<{ name: string; b: string }>(
        `SELECT name, secondary_indices_compressed_bytes AS b FROM system.parts WHERE active AND database = currentDatabase() AND table = 'steps' ORDER BY modification_time, name`,
      )).map((p) => Number(p.b));
    await storage.insert('steps', [{ project: 'p', run_id: 'fresh', step: 0, ts, action: 'look', observation: 'a Platypus swims' }]);
    const before = await indexBytes();
    expect(before[before.length - 1], 'the newest part, as inserted').toBe(0);
    expect(await found('PLATYPUS', 'words')).toEqual(['fresh']);
    await storage.command('OPTIMIZE TABLE steps FINAL');
    const after = await indexBytes();
    expect(after).toHaveLength(1);
    expect(after[0], 'the merged part').toBeGreaterThan(0);
    expect(await found('PLATYPUS', 'words')).toEqual(['fresh']);
    expect(await found('zebra CROSSED', 'words')).toEqual(['new-1', 'old-1']);
  });

  it('are what a words search and a phrase search read, per column', async () => {
    for (const mode of ['words', 'phrase'] as const) {
      const params: QueryParams = {};
      const sql = matchedSql({ ...options('zebra crossed', mode), words: ['zebra', 'crossed'] }, filters, params, '', false);
      const plan = (await storage.query<{ explain: string }>(`EXPLAIN indexes = 1 ${sql}`, params)).map((r) => r.explain).join('\n');
      for (const index of ['text_action', 'text_observation', 'text_error_message', 'text_arguments', 'text_output']) expect(plan, `${mode}: ${index}`).toContain(index);
    }
  });
});
