// The pure run graph (analytics/tool-graph.ts): transitions in order, self-loops with their
// repetitions and cost, the caps' "other" nodes, start and end nodes, and a deterministic answer.
import { describe, expect, it } from 'vitest';
import { buildToolGraph, DEFAULT_MAX_FILES, DEFAULT_MAX_TOOLS, isFileLike, type GraphCall } from '../../analytics/tool-graph.js';

const call = (step: number | null, tool: string, key = '', o: Partial<GraphCall> = {}): GraphCall => ({
  step, tool, key, cost_usd: 0.01, tokens: 10, duration_ms: 5, error: false, ...o,
});
const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

describe('buildToolGraph', () => {
  it('links start, the calls in order and the end named by the outcome', () => {
    const g = buildToolGraph([call(0, 'read', 'a.py'), call(1, 'bash', 'ls'), call(2, '')], 'failure');
    expect(ids(g.nodes)).toEqual(['start', 'file:read\u0000a.py', 'tool:bash', 'no_tool', 'end']);
    expect(g.nodes.at(-1)).toMatchObject({ kind: 'end', label: 'failure' });
    expect(ids(g.edges)).toEqual(['start->file:read\u0000a.py', 'file:read\u0000a.py->tool:bash', 'tool:bash->no_tool', 'no_tool->end']);
    expect(g.edges[1]).toMatchObject({ count: 1, steps: [1], steps_total: 1, max_streak: 0 });
  });

  it('shows a loop as a self-edge with its repetitions, longest streak, errors and cost', () => {
    const calls = [call(0, 'edit', 'x.ts'), ...[1, 2, 3, 4].map((s) => call(s, 'bash', 'make', { error: s % 2 === 0, cost_usd: 0.5 })), call(5, 'edit', 'x.ts'), call(6, 'bash', 'make'), call(7, 'bash', 'make')];
    const g = buildToolGraph(calls, 'success');
    const loop = g.edges.find((e) => e.id === 'tool:bash->tool:bash')!;
    expect(loop).toMatchObject({ count: 4, max_streak: 4, errors: 2, steps: [2, 3, 4, 7], steps_total: 4 });
    expect(loop.cost_usd).toBeCloseTo(0.5 * 3 + 0.01, 9);
    expect(g.edges.find((e) => e.id === 'tool:bash->file:edit\u0000x.ts')).toMatchObject({ count: 1 });
    expect(g.nodes.find((n) => n.id === 'tool:bash')).toMatchObject({ calls: 6, errors: 2 });
  });

  it('lists a step once per node and edge however many calls it has, and caps the list', () => {
    const g = buildToolGraph([call(0, 'grep'), call(0, 'grep'), call(1, 'grep'), call(null, 'grep')], 'success', { stepListCap: 1 });
    const grep = g.nodes.find((n) => n.id === 'tool:grep')!;
    expect(grep).toMatchObject({ calls: 4, steps: [0], steps_total: 2 });
  });

  it('merges tools and files beyond the caps into "other" nodes, most frequent kept', () => {
    const calls = [
      ...Array.from({ length: 5 }, (_, i) => call(i, 'view', 'a.py')),
      ...Array.from({ length: 3 }, (_, i) => call(10 + i, 'view', 'b.py')),
      call(20, 'view', 'c.py'),
      call(21, 'view', 'not a file'),
      call(22, 'rare'),
      call(23, 'rarer'),
      ...Array.from({ length: 4 }, (_, i) => call(30 + i, 'bash', 'ls')),
    ];
    const g = buildToolGraph(calls, 'success', { maxTools: 2, maxFiles: 2 });
    expect(ids(g.nodes)).toEqual(['start', 'file:view\u0000a.py', 'file:view\u0000b.py', 'other:view', 'other', 'tool:bash', 'end']);
    expect(g.nodes.find((n) => n.id === 'other:view')).toMatchObject({ kind: 'other', label: 'view · other files', calls: 2 });
    expect(g.nodes.find((n) => n.id === 'other')).toMatchObject({ label: 'other tools', calls: 2 });
    // rare, rarer, and view's c.py
    expect(g.merged_nodes).toBe(3);
  });

  it('keeps a run of 5,000 steps to the caps', () => {
    const calls = Array.from({ length: 5000 }, (_, s) => call(s, `tool${s % 30}`, `src/file${s % 50}.ts`));
    const g = buildToolGraph(calls, 'success');
    // start, end, the kept tools and files, a split tool's other files each, and the other tools.
    expect(g.nodes.length).toBeLessThanOrEqual(2 + DEFAULT_MAX_TOOLS + DEFAULT_MAX_FILES + DEFAULT_MAX_TOOLS + 1);
    expect(g.nodes.filter((n) => n.kind === 'file')).toHaveLength(DEFAULT_MAX_FILES);
    expect(g.edges.reduce((n, e) => n + e.count, 0)).toBe(5001);
  });

  it('an empty run goes from start to end', () => {
    const g = buildToolGraph([], 'running');
    expect(ids(g.nodes)).toEqual(['start', 'end']);
    expect(g.edges).toEqual([expect.objectContaining({ id: 'start->end', count: 1 })]);
  });

  it('gives the same graph for the same calls, whatever the ties', () => {
    const calls = [call(0, 'b', 'y.py'), call(1, 'a', 'x.py'), call(2, 'c'), call(3, 'b', 'z.py')];
    const one = buildToolGraph(calls, 'success', { maxTools: 2, maxFiles: 1 });
    const two = buildToolGraph(calls.map((c) => ({ ...c })), 'success', { maxTools: 2, maxFiles: 1 });
    expect(JSON.stringify(one)).toBe(JSON.stringify(two));
    // Ties broken by name: tools a and b kept over c; file a/x.py over b/y.py and b/z.py.
    expect(ids(one.nodes)).toEqual(['start', 'tool:b', 'file:a\u0000x.py', 'other', 'end']);
  });
});

describe('isFileLike', () => {
  it('takes paths and file names, not commands, queries or URLs', () => {
    for (const k of ['src/a.py', '/etc/hosts', 'README.md', 'a.test.ts']) expect(isFileLike(k), k).toBe(true);
    for (const k of ['', 'ls -la', 'make', 'https://x.io/a.py', 'select 1', 'v1.2']) expect(isFileLike(k), k).toBe(false);
  });
});
