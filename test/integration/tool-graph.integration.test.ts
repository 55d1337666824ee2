// GET /api/v1/runs/:run_id/graph and GET /api/v1/graph (docs/graphs.md) against the real server
// and embedded engine: transitions in run order, self-loops with their repetitions and cost, the
// cohort's probabilities per outcome, filters applied, other projects left out, and rows
// delivered twice counted once.
import { describe, expect, it } from 'vitest';
import { getJson, serverForFile } from '../helpers/test-server.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
type Call = { tool: string; args: Record<string, unknown>; error?: boolean } | null;

/** A run of one step per entry (null: a step without a tool call), each step costing 0.1. */
function run(project: string, id: string, start: number, calls: Call[], o: { status?: string; model?: string } = {}): object[] {
  const events: object[] = [{ v: 1, type: 'run_start', project, run_id: id, ts: iso(start), model: o.model ?? 'm1', agent: { name: 'a' } }];
  calls.forEach((c, i) => {
    const ts = iso(start + 1000 * (i + 1));
    events.push({ v: 1, type: 'step', project, run_id: id, step: i, ts, model: o.model ?? 'm1', cost_usd: 0.1, input_tokens: 100, output_tokens: 10, action: `act ${i}`, observation: `obs ${i}` });
    if (c) {
      events.push({
        v: 1, type: 'tool_call', project, run_id: id, step: i, call_id: `${id}-c${i}`, ts, tool: c.tool, arguments: c.args,
        status: c.error ? 'error' : 'ok', duration_ms: 50, output: 'x'.repeat(2000),
        ...(c.error ? { error: { type: 'ExitCode', message: 'exit code 2' } } : {}),
      });
    }
  });
  if (o.status) events.push({ v: 1, type: 'run_end', project, run_id: id, ts: iso(start + 1000 * (calls.length + 1)), status: o.status });
  return events;
}

const view: Call = { tool: 'view', args: { path: 'src/a.py' } };
// A long argument: its key field is read from the engine without its content.
const edit: Call = { tool: 'edit', args: { path: 'src/a.py', new_str: 'y'.repeat(5000), old_str: 'z'.repeat(3000) } };
const bash = (error = false): Call => ({ tool: 'bash', args: { command: 'make test' }, error });

const loopRun = run('default', 'g-loop', T0, [view, edit, bash(true), bash(true), bash(), null], { status: 'success' });
const events: object[] = [
  ...loopRun,
  // Delivered twice: every row again, counted once.
  ...loopRun,
  ...[1, 2, 3].flatMap((i) => run('default', `s${i}`, T0 + i * 60_000, [view, edit, bash()], { status: 'success' })),
  ...[1, 2].flatMap((i) => run('default', `f${i}`, T0 + (10 + i) * 60_000, [view, bash(true), bash(true), bash(true)], { status: 'failure' })),
  ...run('default', 'm2-run', T0 + 20 * 60_000, [{ tool: 'grep', args: { pattern: 'foo' } }], { status: 'failure', model: 'm2' }),
  ...run('other', 'x1', T0, [{ tool: 'secret_tool', args: { path: 'secret.txt' } }], { status: 'success' }),
];

const srv = serverForFile(events);

describe('GET /api/v1/runs/:run_id/graph', () => {
  it('draws the run as tools and files with transitions in run order and its outcome as the end', async () => {
    const g = await srv.api('/api/v1/runs/g-loop/graph');
    expect(g.outcome).toBe('success');
    expect(g.steps).toBe(6);
    expect(g.tool_calls).toBe(5);
    expect(g.nodes.map((n: { id: string }) => n.id)).toEqual(['start', 'file:view\u0000src/a.py', 'file:edit\u0000src/a.py', 'tool:bash', 'no_tool', 'end']);
    expect(g.nodes.find((n: { id: string }) => n.id === 'end').label).toBe('success');
    expect(g.nodes.find((n: { id: string }) => n.id === 'file:edit\u0000src/a.py')).toMatchObject({ kind: 'file', tool: 'edit', key: 'src/a.py', calls: 1, steps: [1] });
    const edges = Object.fromEntries(g.edges.map((e: { id: string; count: number }) => [e.id, e]));
    expect(Object.keys(edges)).toEqual([
      'start->file:view\u0000src/a.py', 'file:view\u0000src/a.py->file:edit\u0000src/a.py', 'file:edit\u0000src/a.py->tool:bash',
      'tool:bash->tool:bash', 'tool:bash->no_tool', 'no_tool->end',
    ]);
    // The loop: bash, bash, bash: two repetitions leading to steps 3 and 4, one of them failing.
    expect(edges['tool:bash->tool:bash']).toMatchObject({ count: 2, max_streak: 3, errors: 1, steps: [3, 4], steps_total: 2, duration_ms: 100 });
    expect(edges['tool:bash->tool:bash'].cost_usd).toBeCloseTo(0.2, 6);
    expect(edges['tool:bash->tool:bash'].tokens).toBe(220);
    expect(g.nodes.find((n: { id: string }) => n.id === 'tool:bash')).toMatchObject({ calls: 3, errors: 2, steps: [2, 3, 4] });
  });

  it('merges what the caps leave out into "other" nodes', async () => {
    const g = await srv.api('/api/v1/runs/g-loop/graph?max_tools=1&max_files=0');
    expect(g.nodes.map((n: { id: string }) => n.id)).toEqual(['start', 'other', 'tool:bash', 'no_tool', 'end']);
    expect(g.merged_nodes).toBe(2);
    expect(g.edges.find((e: { id: string }) => e.id === 'other->other')).toMatchObject({ count: 1, steps: [1] });
  });

  it('answers 404 for a run not stored and 400 for a bad cap, and never crosses projects', async () => {
    expect((await getJson(srv.server.url, '/api/v1/runs/nope/graph')).status).toBe(404);
    expect((await getJson(srv.server.url, '/api/v1/runs/g-loop/graph?max_tools=0')).status).toBe(400);
    expect((await getJson(srv.server.url, '/api/v1/runs/x1/graph?project=default')).status).toBe(404);
  });
});

describe('GET /api/v1/graph', () => {
  it('counts transitions per outcome with P(next | current) and the share of runs that failed after an edge', async () => {
    const g = await srv.api('/api/v1/graph?project=default&model=m1');
    expect(g).toMatchObject({ runs_matched: 6, runs_read: 6, runs: { all: 6, success: 4, failure: 2 }, runs_cap: 20000, merged_tools: 0 });
    expect(g.nodes.map((n: { id: string }) => n.id).sort()).toEqual(['end:failure', 'end:success', 'start', 'tool:bash', 'tool:edit', 'tool:view']);
    const edges = Object.fromEntries(g.edges.map((e: { id: string }) => [e.id, e]));
    expect(edges['start->tool:view']).toMatchObject({ count: { all: 6, success: 4, failure: 2 }, probability: { all: 1, success: 1, failure: 1 }, failure_share: 0.3333 });
    expect(edges['tool:view->tool:edit']).toMatchObject({ count: { all: 4, success: 4, failure: 0 }, failure_share: 0 });
    expect(edges['tool:view->tool:edit'].probability.all).toBeCloseTo(4 / 6, 3);
    expect(edges['tool:view->tool:bash']).toMatchObject({ count: { all: 2, success: 0, failure: 2 }, runs: { all: 2, failure: 2 }, failure_share: 1 });
    expect(edges['tool:view->tool:bash'].probability).toMatchObject({ success: 0, failure: 1 });
    // g-loop repeats bash twice (the copy delivered twice adds nothing), f1 and f2 twice each.
    expect(edges['tool:bash->tool:bash']).toMatchObject({ count: { all: 6, success: 2, failure: 4 }, runs: { all: 3, success: 1, failure: 2 } });
    expect(edges['tool:bash->end:success'].count.all).toBe(4);
    expect(edges['tool:bash->end:failure'].count.all).toBe(2);
    // Out of bash: 6 loops, 4 to success, 2 to failure.
    expect(edges['tool:bash->tool:bash'].probability.all).toBeCloseTo(6 / 12, 3);
    const ex = edges['tool:view->tool:bash'].examples;
    expect(ex.map((e: { run_id: string }) => e.run_id)).toEqual(['f1', 'f2']);
    expect(ex[0]).toMatchObject({ project: 'default', step: 1, failed: true, link: '/runs/f1?step=1' });
    expect(g.nodes.find((n: { id: string }) => n.id === 'tool:view').calls).toEqual({ all: 6, success: 4, failure: 2 });
  });

  it('applies the filters, caps the runs read and leaves other projects out', async () => {
    const m2 = await srv.api('/api/v1/graph?project=default&model=m2');
    expect(m2.runs.all).toBe(1);
    expect(m2.edges.map((e: { id: string }) => e.id).sort()).toEqual(['start->tool:grep', 'tool:grep->end:failure']);
    // The window bounds the runs' start: only m2-run started 15 minutes after T0 or later.
    const late = await srv.api(`/api/v1/graph?project=default&from=${new Date(T0 + 15 * 60_000).toISOString()}`);
    expect(late.runs).toEqual({ all: 1, success: 0, failure: 1 });
    const failing = await srv.api('/api/v1/graph?project=default&model=m1&status=failure');
    expect(failing.runs).toEqual({ all: 2, success: 0, failure: 2 });
    const all = await srv.api('/api/v1/graph?project=default');
    expect(JSON.stringify(all)).not.toContain('secret_tool');
    expect(all.runs.all).toBe(7);
    const capped = await srv.api('/api/v1/graph?project=default&max_runs=2&max_tools=1');
    expect(capped).toMatchObject({ runs_matched: 7, runs_read: 2 });
    // The two most recent: m2-run (grep) and f2 (view, bash): one tool kept, the other merged.
    expect(capped.merged_tools).toBe(2);
    expect(capped.nodes.map((n: { id: string }) => n.id)).toContain('other');
    expect((await getJson(srv.server.url, '/api/v1/graph?max_runs=0')).status).toBe(400);
  });
});
