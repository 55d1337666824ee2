// GET /api/v1/costs/spikes (DESIGN.md "Cost spike"): runs far above their cohort (same project,
// task category and model, over the filtered time window) by robust z; steps whose input tokens
// exceed their cohort's p99 by a factor (context blow-ups); hours whose spend exceeds the
// trailing baseline. Cohort statistics are computed in SQL (type-7 quantiles, as analytics/
// does); the decisions are analytics/ functions.
import {
  DEFAULT_COST_SPIKE_CONFIG,
  findHourlySpendSpikes,
  type CostSpikeConfig,
} from '../../analytics/cost-spikes.js';
import { robustZ } from '../../analytics/robust-stats.js';
import type { CostSpikesReport } from '../../schemas/api.js';
import type { QueryParams, Storage } from '../../storage/gateway.js';
import { num } from '../runs/row-conversions.js';
import type { RunFilters } from '../runs/run-filters.js';
import { findStaleRuns, runSummarySql, type StaleRuns } from '../runs/run-summary-sql.js';

export async function getCostSpikes(
  storage: Storage,
  f: RunFilters,
  config: Partial<CostSpikeConfig>,
  limit: number,
): Promise<CostSpikesReport> {
  const cfg = { ...DEFAULT_COST_SPIKE_CONFIG, ...config };
  const stale = await findStaleRuns(storage, f);
  const [runs, steps, hours] = await Promise.all([
    runSpikes(storage, f, stale, cfg, limit),
    stepSpikes(storage, f, stale, cfg, limit),
    hourSpikes(storage, f, stale, cfg),
  ]);
  return { runs, steps, hours };
}

async function runSpikes(storage: Storage, f: RunFilters, stale: StaleRuns | null, cfg: CostSpikeConfig, limit: number): Promise<CostSpikesReport['runs']> {
  const params: QueryParams = { min_runs: cfg.minCohortRuns, z: cfg.zThreshold };
  // One pass over the summary: per cohort its median and its costs as arrays, then the median and
  // mean of deviations from the arrays (a GROUP BY, not window functions: an exact quantile over a
  // window is finalised again for every row of the partition).
  const rows = await storage.query<Record<string, unknown>>(
    `SELECT project, task_category, model, run_id, cost_usd, n, med, mad, mean_dev FROM
     (
       SELECT project, task_category, model, n, med, costs, ids,
              arrayMap(x -> abs(x - med), costs) AS devs,
              arrayReduce('quantileExactInclusive(0.5)', devs) AS mad, arrayAvg(devs) AS mean_dev
       FROM
       (
         SELECT project, task_category, model, count() AS n, quantileExactInclusive(0.5)(cost_usd) AS med,
                groupArray(cost_usd) AS costs, groupArray(run_id) AS ids
         FROM (${runSummarySql(f, params, stale)})
         GROUP BY project, task_category, model
         HAVING n >= {min_runs:UInt32}
       )
     )
     ARRAY JOIN costs AS cost_usd, ids AS run_id
     WHERE cost_usd > med AND if(mad > 0, 0.6745 * (cost_usd - med) / mad,
                                 if(mean_dev > 0, (cost_usd - med) / (1.253314 * mean_dev), inf)) > {z:Float64} * 0.999`,
    params,
  );
  return rows
    .map((r) => {
      const cost = num(r.cost_usd);
      const med = num(r.med);
      const z = robustZ(cost, { median: med, mad: num(r.mad), mean_abs_dev: num(r.mean_dev) });
      return {
        project: String(r.project),
        run_id: String(r.run_id),
        cohort: { project: String(r.project), task_category: String(r.task_category), model: String(r.model) },
        cost_usd: cost,
        z,
        cohort_median: med,
        cohort_runs: num(r.n),
        factor: med > 0 ? cost / med : null,
      };
    })
    .filter((r) => r.z > cfg.zThreshold)
    .sort((a, b) => b.z - a.z || (a.run_id < b.run_id ? -1 : 1))
    .slice(0, limit);
}

async function stepSpikes(storage: Storage, f: RunFilters, stale: StaleRuns | null, cfg: CostSpikeConfig, limit: number): Promise<CostSpikesReport['steps']> {
  // Each cohort's p99 of step input tokens, from the runs' rollups (one row per run, no step scan),
  // then the steps above p99 × factor: a GROUP BY for the cohorts (small), then one pass that
  // keeps only runs whose largest step passes their cohort's threshold. Steps are identified by
  // their position in step order.
  const params: QueryParams = { min_steps: cfg.minCohortSteps, factor: cfg.contextFactor, limit };
  const cohorts = await storage.query<{ project: string; task_category: string; model: string; p99: number }>(
    `SELECT project, task_category, model, quantileExactInclusiveArray(0.99)(step_input_tokens) AS p99,
            sum(length(step_input_tokens)) AS n
     FROM (${runSummarySql(f, params, stale)})
     GROUP BY project, task_category, model
     HAVING n >= {min_steps:UInt32} AND p99 > 0`,
    params,
  );
  if (cohorts.length === 0) return [];
  const p2: QueryParams = {
    factor: cfg.contextFactor,
    limit,
    c_keys: cohorts.map((c) => [c.project, c.task_category, c.model].join('\u0000')),
    c_p99: cohorts.map((c) => Number(c.p99)),
  };
  const cohortKey = "concat(project, '\\0', task_category, '\\0', model)";
  const rows = await storage.query<Record<string, unknown>>(
    `SELECT project, run_id, task_category, model, tokens, position, p99 FROM
     (
       SELECT project, run_id, task_category, model, step_input_tokens,
              transform(${cohortKey}, {c_keys:Array(String)}, {c_p99:Array(Float64)}, 0.) AS p99
       FROM (${runSummarySql(f, p2, stale)})
       WHERE p99 > 0 AND max_input_tokens > p99 * {factor:Float64}
     )
     ARRAY JOIN step_input_tokens AS tokens, arrayEnumerate(step_input_tokens) AS position
     WHERE tokens > p99 * {factor:Float64}
     ORDER BY tokens / p99 DESC, run_id
     LIMIT {limit:UInt32}`,
    p2,
  );
  if (rows.length === 0) return [];
  // Step indices of the blown-up positions (the rollup keeps tokens in step order).
  const p3: QueryParams = { ids: [...new Set(rows.map((r) => String(r.run_id)))] };
  const steps = await storage.query<{ project: string; run_id: string; steps: number[] }>(
    `SELECT project, run_id, arraySort(groupArray(step)) AS steps FROM steps FINAL
     WHERE run_id IN {ids:Array(String)} GROUP BY project, run_id`,
    p3,
  );
  const index = new Map(steps.map((s) => [`${s.project}\u0000${s.run_id}`, s.steps.map(Number)]));
  return rows.map((r) => {
    const tokens = num(r.tokens);
    const q = num(r.p99);
    const list = index.get(`${r.project}\u0000${r.run_id}`) ?? [];
    return { project: String(r.project), run_id: String(r.run_id), step: list[num(r.position) - 1] ?? num(r.position) - 1, input_tokens: tokens, cohort_p99: q, factor: tokens / q };
  });
}

async function hourSpikes(storage: Storage, f: RunFilters, stale: StaleRuns | null, cfg: CostSpikeConfig): Promise<CostSpikesReport['hours']> {
  const params: QueryParams = {};
  // Spend per hour of the runs' start (runs last minutes, so this is close to spend per hour of steps
  // and reads one row per run instead of every step).
  const rows = await storage.query<{ hour: string; cost: number }>(
    `SELECT toUnixTimestamp(toStartOfHour(started_at)) * 1000 AS hour, sum(cost_usd) AS cost
     FROM (${runSummarySql(f, params, stale)}) GROUP BY hour ORDER BY hour`,
    params,
  );
  return findHourlySpendSpikes(rows.map((r) => ({ hour: Number(r.hour), cost_usd: Number(r.cost) })), cfg).map((h) => ({
    hour: new Date(h.hour).toISOString(),
    cost_usd: h.cost_usd,
    baseline_usd: h.baseline_usd,
    factor: h.factor,
  }));
}
