// Events of a few small, recognisable runs for the browser test, timed relative to `now` so
// they fall inside the dashboard's default time range.

type Event = Record<string, unknown>;

export interface FixtureRun {
  run_id: string;
  task_id: string;
  model: string;
  status: 'success' | 'failure' | 'error';
  steps: number;
  cost_per_step: number;
}

export const FIXTURE_RUNS: FixtureRun[] = [
  { run_id: 'bt-run-alpha', task_id: 'django__django-11265', model: 'claude-sonnet-4', status: 'failure', steps: 3, cost_per_step: 0.25 },
  { run_id: 'bt-run-bravo', task_id: 'sympy__sympy-20590', model: 'claude-sonnet-4', status: 'success', steps: 2, cost_per_step: 0.5 },
  { run_id: 'bt-run-charlie', task_id: 'astropy__astropy-12907', model: 'gpt-4.1', status: 'success', steps: 4, cost_per_step: 0.125 },
];

/** Total cost of the fixture runs: 3·0.25 + 2·0.5 + 4·0.125 = $2.25. */
export const FIXTURE_TOTAL_COST = FIXTURE_RUNS.reduce((s, r) => s + r.steps * r.cost_per_step, 0);

export function fixtureEvents(now: Date): Event[] {
  const events: Event[] = [];
  FIXTURE_RUNS.forEach((r, i) => {
    const t0 = now.getTime() - (i + 1) * 20 * 60_000;
    const at = (ms: number) => new Date(t0 + ms).toISOString();
    events.push({
      v: 1,
      type: 'run_start',
      project: 'default',
      run_id: r.run_id,
      ts: at(0),
      agent: { name: 'repo-fixer', version: '3.2.0' },
      model: r.model,
      task: { id: r.task_id, category: 'bugfix' },
      environment: 'swe-sandbox',
      tags: { dataset: 'verified' },
      max_steps: 50,
    });
    for (let s = 0; s < r.steps; s++) {
      const failing = r.status === 'failure' && s === 1;
      events.push({
        v: 1,
        type: 'step',
        project: 'default',
        run_id: r.run_id,
        step: s,
        ts: at(1000 + s * 5000),
        model: r.model,
        input_tokens: 5000 + s * 500,
        output_tokens: 200 + s * 10,
        cost_usd: r.cost_per_step,
        latency_ms: 2500,
        action: s === 0 ? `bash {"cmd":"grep -rn 'FilteredRelation' ${r.run_id}.py"}` : `edit step ${s} of ${r.run_id}`,
        observation: failing ? "ImportError: cannot import name 'FilteredRelation'" : `observation ${s} of ${r.run_id}`,
        ...(failing ? { error: { type: 'ToolError', message: 'exit code 1' } } : {}),
      });
      events.push({
        v: 1,
        type: 'tool_call',
        project: 'default',
        run_id: r.run_id,
        step: s,
        call_id: `${r.run_id}-call-${s}`,
        ts: at(1200 + s * 5000),
        tool: s === 0 ? 'bash' : 'str_replace_editor',
        arguments: s === 0 ? { cmd: `grep -rn 'FilteredRelation' ${r.run_id}.py` } : { path: `src/module_${s}.py`, old_str: 'a', new_str: 'b' },
        status: failing ? 'error' : 'ok',
        ...(failing ? { error: { type: 'ExitCode', message: 'exit code 1' } } : {}),
        duration_ms: 180,
        output: failing ? "ImportError: cannot import name 'FilteredRelation'" : `ok ${s}`,
      });
    }
    events.push({
      v: 1,
      type: 'run_end',
      project: 'default',
      run_id: r.run_id,
      ts: at(1000 + r.steps * 5000 + 2000),
      status: r.status,
      reward: r.status === 'success' ? 1 : 0,
      tests: r.status === 'success' ? { passed: 13, failed: 0 } : { passed: 11, failed: 2 },
    });
  });
  return events;
}
