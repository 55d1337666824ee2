// The upgrade to the errors rollup (0021_error_rollup.sql): analyses written before it hold no
// error occurrences, so the migration makes every stored analysis stale. Until the runs are
// analysed again, the errors endpoint reads them from their raw rows; the next start's scan
// analyses them all, each analysis then keeps its run's occurrences, and the endpoint answers the
// same from them. Real engine, runs written straight into the tables as a backfill would.
import { afterAll, describe, expect, it } from 'vitest';
import { insertCurrentAnalyses, insertSyntheticRuns } from '../../bench/synthetic-runs.js';
import { openServices, type Services } from '../../runtime/services.js';
import { openStorage, type Storage } from '../../storage/gateway.js';
import { loadMigrations, migrate } from '../../storage/migrate.js';
import { errorRowsSql } from '../../storage/queries/error-rows-sql.js';
import { getErrors } from '../../storage/queries/errors-queries.js';
import { EMPTY_FILTERS } from '../../storage/queries/run-filters.js';
import { newDataDir, removeDataDir, testConfig } from '../helpers/test-server.js';

const ROLLUP = '0021_error_rollup.sql';
const RUNS = 400;
const dir = newDataDir();
let services: Services | undefined;

afterAll(async () => {
  await services?.close();
  removeDataDir(dir);
});

const count = async (s: Storage, sql: string) => Number((await s.query<{ n: string }>(sql))[0]!.n);
const filters = { ...EMPTY_FILTERS, project: ['p'] };
const options = { limit: 50, now: Date.parse('2026-12-01T00:00:00Z') };

describe('upgrading to the errors rollup', () => {
  it('reads the runs analysed before it raw, analyses them again at the next start, and answers the same', async () => {
    const before = await openStorage({ dataDir: dir, database: 'default' });
    await migrate(before, loadMigrations().filter((m) => m.name < ROLLUP));
    await insertSyntheticRuns(before, { project: 'p', from: 0, count: RUNS, startMs: Date.parse('2026-11-01T00:00:00Z') });
    // Current analyses, as the analyzer wrote them before the rollup existed.
    await insertCurrentAnalyses(before, 'p');
    expect(await migrate(before)).toEqual([ROLLUP]);
    expect(await count(before, `SELECT count() AS n FROM run_analysis FINAL WHERE source_ingested_at > toDateTime64(0, 6, 'UTC')`)).toBe(0);
    // The occurrences of the stored rows: (run, step or call, template) once each.
    const occurrences = await count(before, `SELECT count() AS n FROM (SELECT DISTINCT run_id, occurrence, template FROM (${errorRowsSql('')}))`);
    expect(occurrences).toBeGreaterThan(RUNS / 10);
    const raw = await getErrors(before, filters, options);
    expect(raw.occurrences).toBe(occurrences);
    expect(raw.runs).toBe(await count(before, `SELECT uniqExact(run_id) AS n FROM (${errorRowsSql('')})`));
    await before.close();

    services = await openServices(testConfig(dir));
    await services.analyzer.drain();
    const s = services.storage;
    expect(await count(s, `SELECT count() AS n FROM run_analysis FINAL WHERE source_ingested_at > toDateTime64(0, 6, 'UTC')`)).toBe(RUNS);
    expect(await count(s, 'SELECT sum(length(step_error_templates)) AS n FROM run_analysis FINAL')).toBe(occurrences);
    // The same signatures (the analysis now also finds the runs' final errors, which the analyses
    // written above lacked: those are other signatures).
    const signatures = raw.items.map((i) => i.signature);
    expect(await getErrors(s, filters, { ...options, signatures })).toEqual(raw);
  }, 120_000);
});
