// What the Tool paths page draws from GET /api/v1/graph (web/src/lib/graph-model.ts): per
// outcome, only the nodes and edges its runs took, edges labelled P(next | current), coloured by
// their failure share against the cohort's own failure rate; and links to a run at a step.
import { describe, expect, it } from 'vitest';
import type { CohortGraph } from '../../schemas/tool-graph.js';
import { cohortGraphView, relativeShare, stepHref } from '../../web/src/lib/graph-model.js';

const oc = (success: number, failure: number) => ({ all: success + failure, success, failure });
const graph: CohortGraph = {
  runs_matched: 10, runs_read: 10, runs: oc(5, 5), runs_cap: 20_000, merged_tools: 0,
  nodes: [
    { id: 'start', kind: 'start', tool: '', label: 'start', calls: oc(0, 0), runs: oc(5, 5), examples: [] },
    { id: 'tool:bash', kind: 'tool', tool: 'bash', label: 'bash', calls: oc(9, 12), runs: oc(5, 5), examples: [] },
    { id: 'tool:retry', kind: 'tool', tool: 'retry', label: 'retry', calls: oc(0, 8), runs: oc(0, 4), examples: [] },
    { id: 'end:success', kind: 'end', tool: '', label: 'success', calls: oc(0, 0), runs: oc(5, 0), examples: [] },
    { id: 'end:failure', kind: 'end', tool: '', label: 'failure', calls: oc(0, 0), runs: oc(0, 5), examples: [] },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'tool:bash', count: oc(5, 5), probability: { all: 1, success: 1, failure: 1 }, runs: oc(5, 5), failure_share: 0.5, examples: [] },
    { id: 'e2', from: 'tool:bash', to: 'tool:retry', count: oc(0, 8), probability: { all: 0.38, success: 0, failure: 0.47 }, runs: oc(0, 4), failure_share: 1, examples: [] },
    { id: 'e3', from: 'tool:bash', to: 'end:success', count: oc(5, 0), probability: { all: 0.24, success: 0.56, failure: 0 }, runs: oc(5, 0), failure_share: 0, examples: [] },
  ],
};

describe('the Tool paths view', () => {
  it('shows per outcome only what its runs took, with P(next | current)', () => {
    const success = cohortGraphView(graph, 'success');
    expect(success.nodes.map((n) => n.id)).toEqual(['start', 'tool:bash', 'end:success']);
    expect(success.edges.map((e) => [e.id, e.count, e.label])).toEqual([['e1', 5, '100%'], ['e3', 5, '56%']]);
    const failing = cohortGraphView(graph, 'failure');
    expect(failing.nodes.map((n) => n.id)).toEqual(['start', 'tool:bash', 'tool:retry', 'end:failure']);
    expect(failing.edges.find((e) => e.id === 'e2')).toMatchObject({ count: 8, label: '47%' });
  });

  it('colours a share against the cohort: as often as the average is the middle', () => {
    const all = cohortGraphView(graph, 'all');
    // Half the runs failed: an edge every run took sits in the middle; one only failures took, at the top.
    expect(all.edges.find((e) => e.id === 'e1')!.share).toBe(0.5);
    expect(all.edges.find((e) => e.id === 'e2')!.share).toBe(1);
    expect(all.edges.find((e) => e.id === 'e3')!.share).toBe(0);
    expect(relativeShare(0.1, 0.1)).toBe(0.5);
    expect(relativeShare(0.55, 0.1)).toBeCloseTo(0.75);
    expect(relativeShare(0, 0)).toBe(0);
    expect(relativeShare(0.2, 0)).toBe(1);
  });

  it('links to a run at a step, keeping the filters and naming the project', () => {
    expect(stepHref('r 1', 4, 'from=5&model=m', 'p')).toBe('/runs/r%201?from=5&model=m&project=p&step=4');
    expect(stepHref('r', null, '')).toBe('/runs/r');
  });
});
