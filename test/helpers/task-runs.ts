// Ended runs of one step per action on a task in an environment, for the tests of per-task and
// per-environment views (reward-hacking evidence): each starts 100 s after the one before, an hour
// ago or so.
const T0 = Date.now() - 3_600_000;
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

/** A maker of such runs; each maker has its own clock. */
export function taskRuns(): (id: string, task: string, env: string, status: string, actions: string[]) => object[] {
  let clock = 0;
  return (id, task, env, status, actions) => {
    const t = (clock += 100);
    return [
      { type: 'run_start', run_id: id, ts: at(t), model: 'm-1', task: { id: task }, environment: env },
      ...actions.map((action, step) => ({ type: 'step', run_id: id, step, ts: at(t + step + 1), action, observation: 'ok' })),
      { type: 'run_end', run_id: id, ts: at(t + 50), status },
    ];
  };
}
