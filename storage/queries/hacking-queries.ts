// GET /api/v1/hacking: reward-hacking evidence (run_analysis.hacking_kinds) of the ended runs in
// view per task or per environment: how many runs carry evidence, of which kind, and the success
// rate with and without it (an environment whose successes mostly come with evidence is broken).
// Identifiers are fixed here; every value is a {name:Type} parameter.
import type { HackingGroup, HackingReport } from '../../schemas/api.js';
import { HACKING_KINDS } from '../../analytics/hacking-evidence.js';
import type { QueryParams, Storage } from '../gateway.js';
import { num } from './row-conversions.js';
import type { RunFilters } from './run-filters.js';
import { ENDED_SQL, SUCCESS_SQL } from './run-lifecycle-sql.js';
import { summarySql } from './run-summary-sql.js';

const GROUP_COLUMN = { task: 'task_id', environment: 'environment' } as const;

export async function getHacking(storage: Storage, f: RunFilters, by: 'task' | 'environment', limit: number): Promise<HackingReport> {
  const params: QueryParams = { h_limit: limit, h_kinds: [...HACKING_KINDS] };
  const summary = await summarySql(storage, f, params);
  const col = GROUP_COLUMN[by];
  // The runs of each kind: a countIf per kind (an array built for every run and summed with
  // sumForEach cost 5 times as much: 0.4 s against 0.08 s over 100,000 runs).
  const metrics = `count() AS runs, countIf(notEmpty(hacking_kinds)) AS with_evidence,
     [${HACKING_KINDS.map((_, i) => `countIf(has(hacking_kinds, {h_kinds:Array(String)}[${i + 1}]))`).join(', ')}] AS kind_runs,
     countIf(notEmpty(hacking_kinds) AND ${SUCCESS_SQL}) AS success_with, countIf(empty(hacking_kinds) AND ${SUCCESS_SQL}) AS success_without`;
  const rows = await storage.query<Record<string, unknown>>(
    `SELECT ${col} AS key, grouping(${col}) AS total, ${metrics}
     FROM (${summary})
     WHERE ${ENDED_SQL}
     GROUP BY GROUPING SETS ((${col}), ())
     ORDER BY total DESC, with_evidence DESC, runs DESC, key
     LIMIT {h_limit:UInt32} + 1`,
    params,
  );
  const group = (r: Record<string, unknown>): HackingGroup => {
    const runs = num(r.runs);
    const withEvidence = num(r.with_evidence);
    const kindRuns = (r.kind_runs as unknown[]).map(num);
    return {
      key: String(r.key ?? ''),
      runs,
      with_evidence: withEvidence,
      by_kind: Object.fromEntries(HACKING_KINDS.map((k, i) => [k, kindRuns[i]]).filter(([, n]) => Number(n) > 0)),
      success_with: withEvidence ? num(r.success_with) / withEvidence : null,
      success_without: runs - withEvidence ? num(r.success_without) / (runs - withEvidence) : null,
    };
  };
  const total = rows.find((r) => Number(r.total) === 1);
  const t = total ? group(total) : { runs: 0, with_evidence: 0, by_kind: {} };
  return {
    by,
    runs: t.runs,
    with_evidence: t.with_evidence,
    by_kind: t.by_kind,
    groups: rows.filter((r) => Number(r.total) === 0 && String(r.key) !== '').map(group),
  };
}
