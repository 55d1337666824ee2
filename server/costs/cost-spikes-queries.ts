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
import { runSummarySql } from '../runs/run-summary-sql.js';

export async function getCostSpikes(
  storage: Storage,
  f: RunFilters,
  config: Partial<CostSpikeConfig>,
  limit: number,
): Promise<CostSpikesReport> {
  const cfg = { ...DEFAULT_COST_SPIKE_CONFIG, ...config };
  const [runs, steps, hours] = await Promise.all([runSpikes(storage, f, cfg, limit), stepSpikes(storage, f, cfg, limit), hourSpikes(storage, f, cfg)]);
  return { runs, steps, hours };
}

async function runSpikes(storage: Storage, f: RunFilters, cfg: CostSpikeConfig, limit: number): Promise<CostSpikesReport['runs']> {
  const params: QueryParams = { min_runs: cfg.minCohortRuns, z: cfg.zThreshold };
  const rows = await storage.query<Record<string, unknown>>(
    `WITH s AS (SELECT project, run_id, task_category, model, cost_usd FROM (${runSummarySql(f, params)})),
     c AS (SELECT project, task_category, model, count() AS n, quantileExactInclusive(0.5)(cost_usd) AS med
           FROM s GROUP BY project, task_category, model HAVING n >= {min_runs:UInt32}),
     d AS (SELECT s.project AS project, s.task_category AS task_category, s.model AS model, s.run_id AS run_id,
                  s.cost_usd AS cost_usd, c.n AS n, c.med AS med, abs(s.cost_usd - c.med) AS dev
           FROM s INNER JOIN c ON s.project = c.project AND s.task_category = c.task_category AND s.model = c.model),
     m AS (SELECT project, task_category, model, quantileExactInclusive(0.5)(dev) AS mad, avg(dev) AS mean_dev
           FROM d GROUP BY project, task_category, model)
     SELECT d.project AS project, d.task_category AS task_category, d.model AS model, d.run_id AS run_id, d.cost_usd AS cost_usd,
            d.n AS n, d.med AS med, m.mad AS mad, m.mean_dev AS mean_dev
     FROM d INNER JOIN m ON d.project = m.project AND d.task_category = m.task_category AND d.model = m.model
     WHERE d.cost_usd > d.med AND if(m.mad > 0, 0.6745 * (d.cost_usd - d.med) / m.mad,
                                     if(m.mean_dev > 0, (d.cost_usd - d.med) / (1.253314 * m.mean_dev), inf)) > {z:Float64} * 0.999`,
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

async function stepSpikes(storage: Storage, f: RunFilters, cfg: CostSpikeConfig, limit: number): Promise<CostSpikesReport['steps']> {
  const params: QueryParams = { min_steps: cfg.minCohortSteps, factor: cfg.contextFactor, limit };
  const rows = await storage.query<Record<string, unknown>>(
    `WITH s AS (SELECT project, run_id, task_category, model, max_input_tokens FROM (${runSummarySql(f, params)})),
     st AS (SELECT s.project AS project, s.run_id AS run_id, s.task_category AS task_category, s.model AS model,
                   steps.step AS step, steps.input_tokens AS input_tokens
            FROM (SELECT project, run_id, step, input_tokens FROM steps FINAL
                  WHERE (project, run_id) IN (SELECT project, run_id FROM s)) AS steps
            INNER JOIN s ON s.project = steps.project AND s.run_id = steps.run_id),
     c AS (SELECT project, task_category, model, quantileExactInclusive(0.99)(input_tokens) AS p99
           FROM st GROUP BY project, task_category, model HAVING count() >= {min_steps:UInt32} AND p99 > 0)
     SELECT st.project AS project, st.run_id AS run_id, st.step AS step, st.input_tokens AS input_tokens, c.p99 AS p99
     FROM st INNER JOIN c ON st.project = c.project AND st.task_category = c.task_category AND st.model = c.model
     WHERE st.input_tokens > c.p99 * {factor:Float64}
     ORDER BY st.input_tokens / c.p99 DESC, run_id, step
     LIMIT {limit:UInt32}`,
    params,
  );
  return rows.map((r) => ({
    project: String(r.project),
    run_id: String(r.run_id),
    step: num(r.step),
    input_tokens: num(r.input_tokens),
    cohort_p99: num(r.p99),
    factor: num(r.input_tokens) / num(r.p99),
  }));
}

async function hourSpikes(storage: Storage, f: RunFilters, cfg: CostSpikeConfig): Promise<CostSpikesReport['hours']> {
  const params: QueryParams = {};
  // Spend per hour of the runs' start (runs last minutes, so this is close to spend per hour of steps
  // and reads one row per run instead of every step).
  const rows = await storage.query<{ hour: string; cost: number }>(
    `SELECT toUnixTimestamp(toStartOfHour(started_at)) * 1000 AS hour, sum(cost_usd) AS cost
     FROM (${runSummarySql(f, params)}) GROUP BY hour ORDER BY hour`,
    params,
  );
  return findHourlySpendSpikes(rows.map((r) => ({ hour: Number(r.hour), cost_usd: Number(r.cost) })), cfg).map((h) => ({
    hour: new Date(h.hour).toISOString(),
    cost_usd: h.cost_usd,
    baseline_usd: h.baseline_usd,
    factor: h.factor,
  }));
}
