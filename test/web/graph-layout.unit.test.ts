// Layout of the tool graphs (web/src/lib/graph-layout.ts): deterministic, start on top and the
// ends at the bottom, no layer wider than MAX_PER_ROW, no two nodes overlapping; and the edge
// threshold, widths and failure colours the pages draw with.
import { describe, expect, it } from 'vitest';
import { edgeThreshold, edgeWidth, failureColor, layoutGraph, MAX_PER_ROW, NODE_HEIGHT, NODE_WIDTH } from '../../web/src/lib/graph-layout.js';

/** A hub (bash) every one of 12 tools goes back to, with loops, from start to two ends. */
function hubGraph() {
  const tools = Array.from({ length: 12 }, (_, i) => `tool_${i}`);
  const ids = ['start', 'bash', ...tools, 'end:success', 'end:failure'];
  const edges = [
    { id: 'start>bash', from: 'start', to: 'bash', weight: 100 },
    { id: 'bash>bash', from: 'bash', to: 'bash', weight: 30 },
    ...tools.flatMap((t, i) => [
      { id: `bash>${t}`, from: 'bash', to: t, weight: 10 + i },
      { id: `${t}>bash`, from: t, to: 'bash', weight: 9 + i },
      { id: `${t}>end`, from: t, to: i % 2 ? 'end:success' : 'end:failure', weight: 1 },
    ]),
  ];
  return { ids, edges };
}

describe('layoutGraph', () => {
  it('is deterministic, starts on top, ends at the bottom, and wraps wide layers', () => {
    const { ids, edges } = hubGraph();
    const a = layoutGraph(ids, edges);
    expect(layoutGraph(ids, edges)).toEqual(a);
    const y = (id: string) => a.nodes.get(id)!.y;
    const inner = ids.filter((id) => id !== 'start' && !id.startsWith('end'));
    expect(inner.every((id) => y('start') < y(id))).toBe(true);
    expect(inner.every((id) => y(id) < y('end:success') && y(id) < y('end:failure'))).toBe(true);
    const rows = new Map<number, number>();
    for (const id of ids) rows.set(y(id), (rows.get(y(id)) ?? 0) + 1);
    expect(Math.max(...rows.values())).toBeLessThanOrEqual(MAX_PER_ROW);
  });

  it('never puts two nodes on top of each other', () => {
    const { ids, edges } = hubGraph();
    const { nodes } = layoutGraph(ids, edges);
    const boxes = ids.map((id) => ({ id, ...nodes.get(id)! }));
    for (const p of boxes) {
      for (const q of boxes) {
        if (p.id >= q.id) continue;
        const apart = p.x + NODE_WIDTH <= q.x || q.x + NODE_WIDTH <= p.x || p.y + NODE_HEIGHT <= q.y || q.y + NODE_HEIGHT <= p.y;
        expect(apart, `${p.id} and ${q.id} overlap`).toBe(true);
      }
    }
  });
});

describe('drawing', () => {
  it('keeps at most `max` edges by count, ties at the cut dropped together', () => {
    expect(edgeThreshold([5, 4, 3], 10)).toBe(1);
    expect(edgeThreshold([9, 7, 7, 7, 2], 3)).toBe(8);
    expect(edgeThreshold([9, 8, 7, 2], 3)).toBe(7);
  });
  it('widens edges logarithmically from 1 to 9 px', () => {
    expect(edgeWidth(1, 1)).toBe(1.5);
    expect(edgeWidth(1000, 1000)).toBeCloseTo(9);
    expect(edgeWidth(10, 1000)).toBeGreaterThan(1);
    expect(edgeWidth(10, 1000)).toBeLessThan(edgeWidth(100, 1000));
  });
  it('colours failure from blue-grey through amber to red, bounded', () => {
    expect(failureColor(0)).toBe('rgb(107, 127, 153)');
    expect(failureColor(0.5)).toBe('rgb(196, 164, 108)');
    expect(failureColor(1)).toBe('rgb(210, 67, 58)');
    expect(failureColor(7)).toBe(failureColor(1));
    expect(failureColor(Number.NaN)).toBe(failureColor(0));
  });
});
