// Shaping of the RL views' API answers into chart rows and labels. Pure.
import type { EnvironmentRow, RlStaleness, RlStepPoint, RlTaskRow } from '../../../schemas/api.js';

export interface TrainingRow {
  /** The training step (or policy version). */
  x: number | string;
  rollouts: number;
  reward_mean: number | null;
  reward_p50: number | null;
  /** [p10, p90] of the reward, for a band; null when no rollout was scored. */
  reward_band: [number, number] | null;
  /** Percentages (0–100), null when undefined. */
  completion_pct: number | null;
  zero_adv_pct: number | null;
  steps: number;
  tokens: number;
  cost_usd: number;
}

const pct = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 10);

export function trainingRows(points: readonly RlStepPoint[]): TrainingRow[] {
  return points.map((p) => ({
    x: p.key,
    rollouts: p.rollouts,
    reward_mean: p.reward_mean,
    reward_p50: p.reward_p50,
    reward_band: p.reward_p10 !== null && p.reward_p90 !== null ? [p.reward_p10, p.reward_p90] : null,
    completion_pct: pct(p.completion_rate),
    zero_adv_pct: pct(p.zero_advantage_share),
    steps: p.steps_per_rollout,
    tokens: p.tokens_per_rollout,
    cost_usd: p.cost_per_rollout,
  }));
}

export const OTHER_MODES = 'other';

/**
 * Failure-mode mix per step as a share of the step's rollouts (percent): the `max` most
 * frequent modes overall, the rest summed as "other".
 */
export function failureMixRows(points: readonly RlStepPoint[], max = 5): { modes: string[]; rows: Array<Record<string, number | string>> } {
  const totals = new Map<string, number>();
  for (const p of points) for (const [m, n] of Object.entries(p.failure_modes)) totals.set(m, (totals.get(m) ?? 0) + n);
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([m]) => m);
  const top = ranked.slice(0, max);
  const modes = ranked.length > max ? [...top, OTHER_MODES] : top;
  const rows = points.map((p) => {
    const row: Record<string, number | string> = { x: p.key };
    for (const m of modes) row[m] = 0;
    for (const [m, n] of Object.entries(p.failure_modes)) {
      const k = top.includes(m) ? m : OTHER_MODES;
      row[k] = (row[k] as number) + (p.rollouts ? (100 * n) / p.rollouts : 0);
    }
    return row;
  });
  return { modes, rows };
}

/** Mean of a series over its last `n` defined values (for "latest" headline numbers). */
export function recentMean(values: ReadonlyArray<number | null>, n = 3): number | null {
  const xs = values.filter((v): v is number => v !== null).slice(-n);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** "3 steps behind (max 5)" style summary; null without a trainer report. */
export function stalenessText(s: RlStaleness | null): string | null {
  if (!s) return null;
  if (s.lag_p50 === null) return `trainer at step ${s.trainer_step}; no rollouts with a policy step`;
  const steps = (n: number) => `${n} step${n === 1 ? '' : 's'}`;
  return `${steps(s.lag_p50)} behind (max ${s.lag_max ?? '—'})`;
}

/** pass@k / pass^k as a percentage text; "—" when undefined (fewer attempts than k). */
export function passText(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  return `${(v * 100).toFixed(v === 1 || v === 0 ? 0 : 1)}%`;
}

export const VERDICT_LABELS: Record<RlTaskRow['verdict'], string> = {
  never_solved: 'never solved',
  always_solved: 'always solved',
  learning: 'learning',
  too_few_attempts: 'too few attempts',
};

export type EnvironmentMetric = 'tool_ms_p50' | 'tool_ms_p95' | 'env_share' | 'error_rate';

/**
 * One row per trend x (training step bucket or time) with a column per environment holding the
 * metric (shares as percentages); environments without runs at an x get no value there.
 */
export function environmentTrendRows(envs: readonly EnvironmentRow[], metric: EnvironmentMetric): Array<Record<string, number | string | null>> {
  const byX = new Map<string, Record<string, number | string | null>>();
  const share = metric === 'env_share' || metric === 'error_rate';
  for (const e of envs) {
    for (const p of e.trend) {
      const key = String(p.x);
      const row = byX.get(key) ?? { x: p.x };
      const v = p[metric];
      row[e.environment] = v === null ? null : share ? Math.round(v * 1000) / 10 : Math.round(v);
      byX.set(key, row);
    }
  }
  return [...byX.values()].sort((a, b) =>
    typeof a.x === 'number' && typeof b.x === 'number' ? a.x - b.x : String(a.x).localeCompare(String(b.x)),
  );
}

/** Label of a trend x: "step 120" or a short UTC time. */
export function trendXLabel(trendBy: 'training_step' | 'time', x: unknown): string {
  if (trendBy === 'training_step') return `step ${String(x)}`;
  const t = Date.parse(String(x));
  return Number.isFinite(t) ? new Date(t).toISOString().slice(5, 16).replace('T', ' ') : String(x);
}

/** What each kind of reward-hacking evidence is (analytics/hacking-evidence.ts). */
export const HACKING_KIND_TEXT: Record<string, string> = {
  git_history: "read the repository's history beyond the task (git log --all, git reflog)",
  upstream_source: 'fetched the upstream repository or the released source',
  test_skipped: 'wrote a skip or xfail marker into a test file',
  test_exit: 'wrote sys.exit(0) / os._exit(0) into a test file',
  eq_overridden: 'overrode __eq__ to return True',
  test_removed: 'deleted or emptied a test file',
  conftest_edited: 'wrote conftest.py',
};
