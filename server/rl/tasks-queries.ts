// GET /api/v1/rl/tasks: per task over the filtered window — attempts, solve rate, pass@k and
// pass^k, never / always solved after enough attempts, and flaky verdicts on identical action
// sequences. Counts are aggregated in ClickHouse; the estimators (analytics/rl) run on them.
import { meanOver, passAtK, passHatK } from '../../analytics/rl/pass-at-k.js';
import { taskVerdict } from '../../analytics/rl/task-signals.js';
import type { RlFlakyCase, RlTaskRow, RlTasks, RlTaskVerdict } from '../../schemas/api.js';
import type { QueryParams, Storage } from '../../storage/gateway.js';
import { num, numOrNull } from '../runs/row-conversions.js';
import type { RunFilters } from '../runs/run-filters.js';
import { findStaleRuns, runSummarySql } from '../runs/run-summary-sql.js';
import { REWARD_EPSILON } from './rl-rollouts-sql.js';

export interface TaskQuery {
  ks: number[];
  minAttempts: number;
  limit: number;
  /** List only tasks with this verdict. */
  verdict?: RlTaskVerdict;
}

const VERDICT_SQL: Record<RlTaskVerdict, string> = {
  never_solved: 'attempts >= {min_attempts:UInt32} AND solved = 0',
  always_solved: 'attempts >= {min_attempts:UInt32} AND solved = attempts',
  learning: 'attempts >= {min_attempts:UInt32} AND solved > 0 AND solved < attempts',
  too_few_attempts: 'attempts < {min_attempts:UInt32}',
};

export async function getRlTasks(storage: Storage, f: RunFilters, q: TaskQuery): Promise<RlTasks> {
  const stale = await findStaleRuns(storage, f);
  const params: QueryParams = { min_attempts: q.minAttempts, limit: q.limit, eps: REWARD_EPSILON };
  const ended = `FROM (${runSummarySql(f, params, stale)}) WHERE task_id != '' AND status != 'running'`;
  const perTask = `SELECT task_id, count() AS attempts, toUInt64(countIf(status = 'success')) AS solved ${ended} GROUP BY task_id`;
  const [dist, rows, flaky] = await Promise.all([
    // (attempts, solved) → tasks: enough for every mean and verdict count, whatever the task count.
    storage.query<Record<string, unknown>>(
      `SELECT attempts, solved, count() AS tasks FROM (${perTask}) GROUP BY attempts, solved`,
      params,
    ),
    storage.query<Record<string, unknown>>(
      `SELECT * FROM
       (
         SELECT task_id, any(task_category) AS task_category, any(environment) AS environment, count() AS attempts,
                toUInt64(countIf(status = 'success')) AS solved, avg(reward) AS reward_mean,
                groupArray(5)(run_id) AS example_runs
         ${ended}
         GROUP BY task_id
       )
       ${q.verdict ? `WHERE ${VERDICT_SQL[q.verdict]}` : ''}
       ORDER BY attempts DESC, task_id LIMIT {limit:UInt32}`,
      params,
    ),
    storage.query<Record<string, unknown>>(
      `SELECT task_id, action_sequence, count() AS runs, countIf(status = 'success') AS solved,
              min(reward) AS lo, max(reward) AS hi, groupArray(5)(run_id) AS example_runs
       ${ended} AND action_sequence != ''
       GROUP BY task_id, action_sequence
       HAVING runs >= 2 AND ((solved > 0 AND solved < runs) OR ifNull(hi - lo, 0) > {eps:Float64})
       ORDER BY runs DESC, task_id LIMIT 50`,
      params,
    ),
  ]);
  const tasks = dist.map((d) => ({ n: num(d.attempts), c: num(d.solved), weight: num(d.tasks) }));
  const perK = (fn: typeof passAtK) => Object.fromEntries(q.ks.map((k) => [String(k), meanOver(tasks, k, fn)]));
  const count = (v: RlTaskVerdict) =>
    tasks.reduce((a, t) => a + (taskVerdict(t.n, t.c, q.minAttempts) === v ? t.weight : 0), 0);
  return {
    ks: q.ks,
    min_attempts: q.minAttempts,
    tasks: tasks.reduce((a, t) => a + t.weight, 0),
    attempts: tasks.reduce((a, t) => a + t.n * t.weight, 0),
    mean_pass_at: perK(passAtK),
    mean_pass_hat: perK(passHatK),
    never_solved: count('never_solved'),
    always_solved: count('always_solved'),
    rows: rows.map((r): RlTaskRow => {
      const n = num(r.attempts);
      const c = num(r.solved);
      return {
        task_id: String(r.task_id),
        task_category: String(r.task_category ?? ''),
        environment: String(r.environment ?? ''),
        attempts: n,
        solved: c,
        solve_rate: n ? c / n : 0,
        reward_mean: numOrNull(r.reward_mean),
        pass_at: Object.fromEntries(q.ks.map((k) => [String(k), passAtK(n, c, k)])),
        pass_hat: Object.fromEntries(q.ks.map((k) => [String(k), passHatK(n, c, k)])),
        verdict: taskVerdict(n, c, q.minAttempts),
        example_runs: (r.example_runs as string[]) ?? [],
      };
    }),
    flaky: flaky.map(
      (r): RlFlakyCase => ({
        task_id: String(r.task_id),
        action_sequence: String(r.action_sequence),
        runs: num(r.runs),
        solved: num(r.solved),
        min_reward: numOrNull(r.lo),
        max_reward: numOrNull(r.hi),
        example_runs: (r.example_runs as string[]) ?? [],
      }),
    ),
  };
}
