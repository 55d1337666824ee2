// The upgrade to the errors rollup (0021_error_rollup.sql): analyses written before it hold no
// error occurrences, so the migration fills them in from the stored rows, as a newer version of
// each analysis, which still covers what it covered. The errors endpoint then answers from them
// as it answers from the raw rows, and the statement applied again (a migration stopped and
// started over) changes nothing. Real engine, runs written straight into the tables as a
// backfill would, with analyses as the analyzer wrote them before the rollup.
import { afterAll, describe, expect, it } from 'vitest';
import { insertCurrentAnalyses, insertSyntheticRuns } from '../../bench/synthetic-runs.js';
import { openStorage } from '../../storage/gateway.js';
import { loadMigrations, migrate } from '../../storage/migrate.js';
import { errorRowsSql } from '../../storage/queries/error-rows-sql.js';
import { getErrors } from '../../storage/queries/errors-queries.js';
import { EMPTY_FILTERS } from '../../storage/queries/run-filters.js';
import { newDataDir, removeDataDir } from '../helpers/test-server.js';

const ROLLUP = '0021_error_rollup.sql';
const RUNS = 400;
const dir = newDataDir();
const storage = await openStorage({ dataDir: dir, database: 'default' });

afterAll(async () => {
  await storage.close();
  removeDataDir(dir);
});

const count = async (sql: string) => Number((await storage.query<{ n: string }>(sql))[0]!.n);
const current = () =>
  count(`SELECT count() AS n FROM (SELECT project, run_id, source_ingested_at FROM run_analysis FINAL) AS a
         JOIN (SELECT project, run_id, max(ingested_at) AS wm FROM runs GROUP BY project, run_id) AS w USING (project, run_id)
         WHERE a.source_ingested_at = w.wm`);
const kept = () => storage.query<{ runs: string; occurrences: string; rows: string }>(
  `SELECT countIf(notEmpty(step_error_templates)) AS runs, sum(length(step_error_templates)) AS occurrences, count() AS rows FROM run_analysis FINAL`,
);
const filters = { ...EMPTY_FILTERS, project: ['p'] };
const options = { limit: 50, now: Date.parse('2026-12-01T00:00:00Z') };

describe('upgrading to the errors rollup', () => {
  it('fills in the occurrences of the runs analysed before it, keeps their analyses current, and answers as the raw rows do', async () => {
    const migrations = loadMigrations();
    await migrate(storage, migrations.filter((m) => m.name < ROLLUP));
    await insertSyntheticRuns(storage, { project: 'p', from: 0, count: RUNS, startMs: Date.parse('2026-11-01T00:00:00Z') });
    await insertCurrentAnalyses(storage, 'p');
    expect(await migrate(storage)).toEqual([ROLLUP]);

    // Every occurrence of the stored rows, (run, step or call, template) once each, is kept by its run's analysis.
    const occurrences = await count(`SELECT count() AS n FROM (SELECT DISTINCT run_id, occurrence, template FROM (${errorRowsSql('')}))`);
    const runsWithErrors = await count(`SELECT uniqExact(run_id) AS n FROM (${errorRowsSql('')})`);
    expect(occurrences).toBeGreaterThan(RUNS / 10);
    const [after] = await kept();
    expect([Number(after!.runs), Number(after!.occurrences), Number(after!.rows)]).toEqual([runsWithErrors, occurrences, RUNS]);
    // Still current: no run waits for the analyzer, and no page reads it raw.
    expect(await current()).toBe(RUNS);

    const fromRollup = await getErrors(storage, filters, options);
    expect([fromRollup.occurrences, fromRollup.runs]).toEqual([occurrences, runsWithErrors]);

    // Applied again (stopped before it was recorded): nothing changes.
    await storage.command(migrations.find((m) => m.name === ROLLUP)!.statements.at(-1)!);
    expect(await kept()).toEqual([after]);
    expect(await current()).toBe(RUNS);

    // The same runs read raw (their analyses made stale) answer the same.
    await storage.command(`ALTER TABLE run_analysis UPDATE source_ingested_at = toDateTime64(0, 6, 'UTC') WHERE 1 SETTINGS mutations_sync = 2`);
    expect(await current()).toBe(0);
    expect(await getErrors(storage, filters, options)).toEqual(fromRollup);
  }, 120_000);
});
