// GET /api/v1/rl/steps: per training step (or policy version) of the filtered RL rollouts —
// rollouts, reward distribution, completion, steps, tokens and cost per rollout, zero-advantage
// groups, failure-mode mix — and the policy staleness against the trainer's reported step.
// One aggregation over the run analyses (see ANALYSED_ONLY).
import type { RlStaleness, RlStepPoint, RlSteps } from '../../schemas/api.js';
import type { QueryParams, Storage } from '../../storage/gateway.js';
import { isoTime, num, numOrNull } from '../runs/row-conversions.js';
import type { RunFilters } from '../runs/run-filters.js';
import { runSummarySql } from '../runs/run-summary-sql.js';
import { ANALYSED_ONLY, POLICY_STEP_SQL, REWARD_EPSILON, REWARD_SQL, VERSION_RE } from './rl-rollouts-sql.js';
import { latestTrainerStep, type TrainerStep } from './trainer-store.js';

export async function getRlSteps(
  storage: Storage,
  f: RunFilters,
  by: 'training_step' | 'policy_version',
  limit: number,
): Promise<RlSteps> {
  const trainer = await latestTrainerStep(storage, f.project);
  const params: QueryParams = { limit, eps: REWARD_EPSILON, trainer: trainer?.training_step ?? 0, ver_re: VERSION_RE };
  const key = by === 'training_step' ? 'rl_training_step' : 'rl_policy_version';
  const order = by === 'training_step' ? 'key DESC' : 'first_step DESC, key DESC';
  // One pass: rollouts grouped by (key, group) — the group's reward range decides zero advantage —
  // then by key; the rewards travel as per-group arrays for the key's quantiles.
  const lag = `{trainer:Int64} - ${POLICY_STEP_SQL}`;
  const rows = await storage.query<Record<string, unknown>>(
    `SELECT key, min(g_first) AS first_step, max(g_last) AS last_step, sum(g_n) AS rollouts, sum(g_ended) AS ended,
            sum(g_success) AS success, sum(g_r_sum) AS r_sum, sum(g_r_sq) AS r_sq, sum(g_r_n) AS r_n,
            quantilesArray(0.1, 0.5, 0.9)(g_rs) AS r_q, sum(g_steps) AS steps, sum(g_tokens) AS tokens, sum(g_cost) AS cost,
            countIf(g != 0 AND g_r_n >= 2) AS groups, countIf(g != 0 AND g_r_n >= 2 AND g_r_hi - g_r_lo <= {eps:Float64}) AS zero_groups,
            sumMap(g_fm, arrayResize([toUInt64(1)], length(g_fm), toUInt64(1))) AS fm
            ${trainer ? ', quantileExactArray(0.5)(g_lags) AS lag_p50, max(g_lag_max) AS lag_max' : ''}
     FROM
     (
       SELECT ${key} AS key, if(rl_group_id = '', 0, cityHash64(rl_group_id)) AS g,
              min(rl_training_step) AS g_first, max(rl_training_step) AS g_last, count() AS g_n,
              countIf(status != 'running') AS g_ended, countIf(status = 'success') AS g_success,
              sum(r) AS g_r_sum, sum(r * r) AS g_r_sq, count(r) AS g_r_n, min(r) AS g_r_lo, max(r) AS g_r_hi, groupArray(r) AS g_rs,
              sum(steps) AS g_steps, sum(input_tokens + output_tokens) AS g_tokens, sum(cost_usd) AS g_cost,
              groupArrayIf(failure_mode, failure_mode != '') AS g_fm
              ${trainer ? `, groupArray(${lag}) AS g_lags, max(${lag}) AS g_lag_max` : ''}
       FROM (SELECT *, ${REWARD_SQL} AS r FROM (${runSummarySql(f, params, ANALYSED_ONLY)}) WHERE rl_training_step IS NOT NULL)
       GROUP BY key, g
     )
     GROUP BY key ORDER BY ${order} LIMIT {limit:UInt32}`,
    params,
  );
  rows.reverse();
  const points = rows.map((r): RlStepPoint => {
    const n = num(r.rollouts);
    const ended = num(r.ended);
    const rn = num(r.r_n);
    const mean = rn ? num(r.r_sum) / rn : null;
    const q = (r.r_q as unknown[]) ?? [];
    const groups = num(r.groups);
    const zero = num(r.zero_groups);
    const [modes, counts] = (r.fm as [string[], unknown[]]) ?? [[], []];
    return {
      key: by === 'training_step' ? num(r.key) : String(r.key),
      rollouts: n,
      ended,
      completion_rate: ended ? num(r.success) / ended : null,
      reward_mean: mean,
      reward_std: mean === null ? null : Math.sqrt(Math.max(0, num(r.r_sq) / rn - mean * mean)),
      reward_p10: rn ? numOrNull(q[0]) : null,
      reward_p50: rn ? numOrNull(q[1]) : null,
      reward_p90: rn ? numOrNull(q[2]) : null,
      steps_per_rollout: n ? num(r.steps) / n : 0,
      tokens_per_rollout: n ? num(r.tokens) / n : 0,
      cost_per_rollout: n ? num(r.cost) / n : 0,
      groups,
      zero_advantage_groups: zero,
      zero_advantage_share: groups ? zero / groups : null,
      failure_modes: Object.fromEntries(modes.map((m, i) => [m, num(counts[i])])),
    };
  });
  return { by, rollouts: points.reduce((a, p) => a + p.rollouts, 0), points, staleness: staleness(trainer, rows[rows.length - 1]) };
}

/** How far the policies of the latest point's rollouts trail the trainer's reported step. */
function staleness(trainer: TrainerStep | null, last: Record<string, unknown> | undefined): RlStaleness | null {
  if (!trainer) return null;
  return {
    trainer_step: trainer.training_step,
    policy_version: trainer.policy_version,
    reported_at: isoTime(trainer.reported_at) ?? '',
    training_step: last ? num(last.last_step) : null,
    rollouts: last ? num(last.rollouts) : 0,
    lag_p50: last ? numOrNull(last.lag_p50) : null,
    lag_max: last ? numOrNull(last.lag_max) : null,
  };
}
