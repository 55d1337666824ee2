// GET /api/v1/failures: failure modes of the filtered runs — distribution with example runs,
// over time, and by one dimension.
import type { FailuresReport } from '../../schemas/api.js';
import type { QueryParams, Storage } from '../../storage/gateway.js';
import { chooseBucketSeconds } from '../metrics/overview-queries.js';
import { dimensionSql } from '../metrics/run-aggregates.js';
import { isoTime, num } from '../runs/row-conversions.js';
import type { RunFilters } from '../runs/run-filters.js';
import { runSummarySql, findStaleRuns } from '../runs/run-summary-sql.js';

export async function getFailures(storage: Storage, f: RunFilters, by: string, examples: number): Promise<FailuresReport> {
  const params: QueryParams = { examples };
  const key = dimensionSql(by, params);
  const stale = await findStaleRuns(storage, f);
  const summary = runSummarySql(f, params, stale);
  const [[span], modes, dims] = await Promise.all([
    storage.query<Record<string, unknown>>(
      `SELECT countIf(status != 'running' OR failure_mode != '') AS runs, countIf(failure_mode != '') AS failed,
              toUnixTimestamp64Milli(min(started_at)) AS lo, toUnixTimestamp64Milli(max(started_at)) AS hi
       FROM (${summary})`,
      params,
    ),
    storage.query<Record<string, unknown>>(
      `SELECT failure_mode AS mode, count() AS runs, groupUniqArray(failure_rule) AS rules,
              arraySlice(arrayReverseSort((id, t) -> t, groupArray(run_id), groupArray(started_at)), 1, {examples:UInt32}) AS examples
       FROM (SELECT failure_mode, if(label_failure_mode != '', 'user_label', failure_rule) AS failure_rule, started_at, run_id FROM (${summary}))
       WHERE failure_mode != '' GROUP BY mode ORDER BY runs DESC, mode`,
      params,
    ),
    storage.query<Record<string, unknown>>(
      `SELECT key, sum(n) AS runs, groupArray((failure_mode, n)) AS counts
       FROM (SELECT ${key} AS key, failure_mode, count() AS n
             FROM (${summary}) WHERE failure_mode != '' GROUP BY key, failure_mode)
       GROUP BY key ORDER BY runs DESC, key LIMIT 50`,
      params,
    ),
  ]);
  const failed = num(span?.failed);
  const lo = f.from ?? (span?.lo != null ? Number(span.lo) : Date.now());
  const hi = f.to ?? (span?.hi != null ? Number(span.hi) + 1 : Date.now());
  const seconds = chooseBucketSeconds(hi - lo, 60);
  const tp: QueryParams = { bucket: seconds };
  const time = await storage.query<Record<string, unknown>>(
    `SELECT toStartOfInterval(started_at, toIntervalSecond({bucket:UInt32})) AS bucket, failure_mode AS mode, count() AS n
     FROM (${runSummarySql(f, tp, stale)}) WHERE failure_mode != '' GROUP BY bucket, mode ORDER BY bucket`,
    tp,
  );
  const points = new Map<string, Record<string, number>>();
  for (const r of time) {
    const b = isoTime(r.bucket)!;
    const counts = points.get(b) ?? {};
    counts[String(r.mode)] = num(r.n);
    points.set(b, counts);
  }
  return {
    runs: num(span?.runs),
    failed,
    modes: modes.map((m) => ({
      mode: String(m.mode),
      runs: num(m.runs),
      share: failed ? num(m.runs) / failed : 0,
      rules: (m.rules as string[]).filter(Boolean).sort(),
      examples: m.examples as string[],
    })),
    over_time: { bucket_seconds: seconds, points: [...points.entries()].map(([bucket, counts]) => ({ bucket, counts })) },
    by,
    by_dimension: dims.map((d) => ({
      key: String(d.key),
      runs: num(d.runs),
      counts: Object.fromEntries((d.counts as Array<[string, unknown]>).map(([m, n]) => [m, num(n)])),
    })),
  };
}
