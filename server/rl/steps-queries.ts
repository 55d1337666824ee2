// GET /api/v1/rl/steps: per training step (or policy version) of the filtered RL rollouts —
// rollouts, reward distribution, completion, steps, tokens and cost per rollout, zero-advantage
// groups, failure-mode mix — and the policy staleness against the trainer's reported step.
// One pass over the run summary: rollouts grouped by (step, group), then by step.
import type { RlStaleness, RlStepPoint, RlSteps } from '../../schemas/api.js';
import type { QueryParams, Storage } from '../../storage/gateway.js';
import { isoTime, num, numOrNull } from '../runs/row-conversions.js';
import type { RunFilters } from '../runs/run-filters.js';
import { findStaleRuns, runSummarySql, type StaleRuns } from '../runs/run-summary-sql.js';
import { POLICY_STEP_SQL, REWARD_EPSILON, REWARD_SQL, VERSION_RE } from './rl-rollouts-sql.js';
import { latestTrainerStep } from './trainer-store.js';

export async function getRlSteps(
  storage: Storage,
  f: RunFilters,
  by: 'training_step' | 'policy_version',
  limit: number,
): Promise<RlSteps> {
  const stale = await findStaleRuns(storage, f);
  const params: QueryParams = { limit, eps: REWARD_EPSILON };
  const key = by === 'training_step' ? 'rl_training_step' : 'rl_policy_version';
  const order = by === 'training_step' ? 'key DESC' : 'first_step DESC, key DESC';
  const [rows, staleness] = await Promise.all([
    storage.query<Record<string, unknown>>(
      `SELECT key, min(g_first) AS first_step, sum(g_n) AS rollouts, sum(g_ended) AS ended, sum(g_success) AS success,
              sum(g_r_sum) AS r_sum, sum(g_r_sq) AS r_sq, sum(g_r_n) AS r_n, quantilesMerge(0.1, 0.5, 0.9)(g_r_q) AS r_q,
              sum(g_steps) AS steps, sum(g_tokens) AS tokens, sum(g_cost) AS cost,
              countIf(g != '' AND g_r_n >= 2) AS groups,
              countIf(g != '' AND g_r_n >= 2 AND g_r_hi - g_r_lo <= {eps:Float64}) AS zero_groups,
              sumMap(g_fm.1, g_fm.2) AS fm
       FROM
       (
         SELECT ${key} AS key, rl_group_id AS g, min(rl_training_step) AS g_first, count() AS g_n,
                countIf(status != 'running') AS g_ended, countIf(status = 'success') AS g_success,
                sum(r) AS g_r_sum, sum(r * r) AS g_r_sq, count(r) AS g_r_n, min(r) AS g_r_lo, max(r) AS g_r_hi,
                quantilesState(0.1, 0.5, 0.9)(r) AS g_r_q,
                sum(steps) AS g_steps, sum(input_tokens + output_tokens) AS g_tokens, sum(cost_usd) AS g_cost,
                sumMap(if(failure_mode != '', [failure_mode], []), if(failure_mode != '', [toUInt64(1)], [])) AS g_fm
         FROM (SELECT *, ${REWARD_SQL} AS r FROM (${runSummarySql(f, params, stale)}))
         WHERE rl_training_step IS NOT NULL
         GROUP BY key, g
       )
       GROUP BY key ORDER BY ${order} LIMIT {limit:UInt32}`,
      params,
    ),
    getStaleness(storage, f, stale),
  ]);
  const points = rows.reverse().map((r): RlStepPoint => {
    const rollouts = num(r.rollouts);
    const ended = num(r.ended);
    const rn = num(r.r_n);
    const mean = rn ? num(r.r_sum) / rn : null;
    const q = (r.r_q as unknown[]) ?? [];
    const groups = num(r.groups);
    const zero = num(r.zero_groups);
    const [modes, counts] = (r.fm as [string[], unknown[]]) ?? [[], []];
    return {
      key: by === 'training_step' ? num(r.key) : String(r.key),
      rollouts,
      ended,
      completion_rate: ended ? num(r.success) / ended : null,
      reward_mean: mean,
      reward_std: mean === null ? null : Math.sqrt(Math.max(0, num(r.r_sq) / rn - mean * mean)),
      reward_p10: rn ? numOrNull(q[0]) : null,
      reward_p50: rn ? numOrNull(q[1]) : null,
      reward_p90: rn ? numOrNull(q[2]) : null,
      steps_per_rollout: rollouts ? num(r.steps) / rollouts : 0,
      tokens_per_rollout: rollouts ? num(r.tokens) / rollouts : 0,
      cost_per_rollout: rollouts ? num(r.cost) / rollouts : 0,
      groups,
      zero_advantage_groups: zero,
      zero_advantage_share: groups ? zero / groups : null,
      failure_modes: Object.fromEntries(modes.map((m, i) => [m, num(counts[i])])),
    };
  });
  return { by, rollouts: points.reduce((a, p) => a + p.rollouts, 0), points, staleness };
}

/** How many steps the latest (up to 1,000) rollouts' policies trail the trainer's reported step. */
async function getStaleness(storage: Storage, f: RunFilters, stale: StaleRuns | null): Promise<RlStaleness | null> {
  const trainer = await latestTrainerStep(storage, f.project);
  if (!trainer) return null;
  const params: QueryParams = { trainer: trainer.training_step, ver_re: VERSION_RE };
  const [row] = await storage.query<Record<string, unknown>>(
    `SELECT count() AS n, quantileExact(0.5)(lag) AS p50, max(lag) AS mx
     FROM (SELECT {trainer:Int64} - ${POLICY_STEP_SQL} AS lag
           FROM (${runSummarySql(f, params, stale)})
           WHERE rl_training_step IS NOT NULL OR rl_policy_version != ''
           ORDER BY started_at DESC LIMIT 1000)`,
    params,
  );
  const n = num(row?.n);
  return {
    trainer_step: trainer.training_step,
    policy_version: trainer.policy_version,
    reported_at: isoTime(trainer.reported_at) ?? '',
    rollouts: n,
    lag_p50: n ? numOrNull(row.p50) : null,
    lag_max: n ? numOrNull(row.mx) : null,
  };
}
