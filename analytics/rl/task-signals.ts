// Learning-signal checks of RL rollouts: groups without advantage, tasks never or always solved,
// flaky verdicts on identical action sequences. Pure; the SQL of server/rl applies the same rules.

/**
 * A group (rollouts of one task sampled together) carries no learning signal when every rollout
 * got the same reward: group-relative advantages are then all zero. Groups with fewer than two
 * scored rollouts are left out. Returns the share of the remaining groups with zero advantage
 * (null when there are none).
 */
export function zeroAdvantageShare(groups: ReadonlyArray<ReadonlyArray<number | null>>, epsilon = 1e-9): number | null {
  let counted = 0;
  let zero = 0;
  for (const g of groups) {
    const rewards = g.filter((r): r is number => r !== null);
    if (rewards.length < 2) continue;
    counted++;
    if (Math.max(...rewards) - Math.min(...rewards) <= epsilon) zero++;
  }
  return counted ? zero / counted : null;
}

export type TaskVerdict = 'never_solved' | 'always_solved' | 'learning' | 'too_few_attempts';

/**
 * After at least `minAttempts` attempts, a task never solved is a candidate broken or unsolvable
 * environment; one always solved is saturated (no signal left); anything else still teaches.
 */
export function taskVerdict(attempts: number, solved: number, minAttempts: number): TaskVerdict {
  if (attempts < minAttempts) return 'too_few_attempts';
  if (solved === 0) return 'never_solved';
  if (solved === attempts) return 'always_solved';
  return 'learning';
}

export interface RolloutOutcome {
  run_id: string;
  task_id: string;
  /** Key of the run's action sequence (actionSequenceKey); '' when it has no actions. */
  action_sequence: string;
  solved: boolean;
  reward: number | null;
}

export interface FlakyCase {
  task_id: string;
  action_sequence: string;
  runs: number;
  solved: number;
  min_reward: number | null;
  max_reward: number | null;
  run_ids: string[];
}

/**
 * Flaky verifier: runs of one task with an identical action sequence that received different
 * outcomes (solved and not) or different rewards. The agent did the same thing; the verdict
 * changed.
 */
export function detectFlaky(runs: readonly RolloutOutcome[], epsilon = 1e-9): FlakyCase[] {
  const bySequence = new Map<string, RolloutOutcome[]>();
  for (const r of runs) {
    if (!r.action_sequence) continue;
    const key = `${r.task_id}\u0000${r.action_sequence}`;
    const list = bySequence.get(key);
    if (list) list.push(r);
    else bySequence.set(key, [r]);
  }
  const out: FlakyCase[] = [];
  for (const list of bySequence.values()) {
    if (list.length < 2) continue;
    const solved = list.filter((r) => r.solved).length;
    const rewards = list.map((r) => r.reward).filter((x): x is number => x !== null);
    const lo = rewards.length ? Math.min(...rewards) : null;
    const hi = rewards.length ? Math.max(...rewards) : null;
    const outcomeDiffers = solved > 0 && solved < list.length;
    const rewardDiffers = lo !== null && hi !== null && hi - lo > epsilon;
    if (!outcomeDiffers && !rewardDiffers) continue;
    out.push({
      task_id: list[0].task_id,
      action_sequence: list[0].action_sequence,
      runs: list.length,
      solved,
      min_reward: lo,
      max_reward: hi,
      run_ids: list.map((r) => r.run_id),
    });
  }
  return out.sort((a, b) => b.runs - a.runs || a.task_id.localeCompare(b.task_id));
}
