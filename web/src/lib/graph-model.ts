// What the graph view draws (graph/graph-view.tsx), from the answers of the graph endpoints
// (schemas/tool-graph.ts): one label and one line of numbers per node, a count, a label and a
// failure share per edge. Pure.
import type { CohortGraph, OutcomeCounts, RunGraph } from '../../../schemas/tool-graph.js';
import { formatDuration, formatInt, formatPercent, formatUsd } from './format.js';

export type NodeTone = 'start' | 'end-ok' | 'end-bad' | 'end-neutral' | 'tool' | 'file' | 'other';

export interface ViewNode {
  id: string;
  label: string;
  /** One line of numbers under the label. */
  sub: string;
  tone: NodeTone;
  /** The full name and numbers (hover). */
  title: string;
  /** Failure share of what happens here (0..1): the node's border colour; null: by its tone. */
  share: number | null;
}

export interface ViewEdge {
  id: string;
  from: string;
  to: string;
  /** Drives the width and the threshold of rare edges. */
  count: number;
  label: string;
  /** Failure share (0..1): the colour. */
  share: number;
  title: string;
}

export type Selection = { kind: 'node' | 'edge'; id: string } | null;

/** Which runs of a cohort the graph counts. */
export type OutcomeView = 'all' | 'success' | 'failure';

const endTone = (label: string): NodeTone => (label === 'success' ? 'end-ok' : label === 'running' || label === 'submitted' || label === 'no verdict yet' || label === 'unknown' ? 'end-neutral' : 'end-bad');

/** The run graph: edges coloured by the share of the calls they lead to that failed. */
export function runGraphView(g: RunGraph): { nodes: ViewNode[]; edges: ViewEdge[] } {
  const nodes: ViewNode[] = g.nodes.map((n) => {
    const tone: NodeTone = n.kind === 'start' ? 'start' : n.kind === 'end' ? endTone(n.label) : n.kind === 'file' ? 'file' : n.kind === 'other' ? 'other' : 'tool';
    const isEnd = n.kind === 'start' || n.kind === 'end';
    const sub = isEnd
      ? n.kind === 'start' ? `${formatInt(g.steps)} steps` : 'outcome'
      : `${formatInt(n.calls)} call${n.calls === 1 ? '' : 's'}${n.errors ? ` · ${formatInt(n.errors)} failed` : ''} · ${formatUsd(n.cost_usd)}`;
    return {
      id: n.id,
      label: n.label,
      sub,
      tone,
      title: n.key ? `${n.tool}: ${n.key}` : n.label,
      share: isEnd || n.calls === 0 ? null : n.errors / n.calls,
    };
  });
  const edges: ViewEdge[] = g.edges.map((e) => {
    const loop = e.from === e.to;
    return {
      id: e.id,
      from: e.from,
      to: e.to,
      count: e.count,
      label: loop ? `↻ ×${formatInt(e.count)} · ${formatUsd(e.cost_usd)}` : `×${formatInt(e.count)}`,
      share: e.count ? e.errors / e.count : 0,
      title: `${formatInt(e.count)} time${e.count === 1 ? '' : 's'}; the calls it led to: ${formatInt(e.errors)} failed, ${formatUsd(e.cost_usd)}, ${formatDuration(e.duration_ms)}`,
    };
  });
  return { nodes, edges };
}

const pick = (c: OutcomeCounts, o: OutcomeView) => c[o];

/**
 * Where a failure share stands against the cohort's failure rate `base`, as a colour position:
 * 0 never fails, 0.5 fails as often as the average run, 1 always fails. Colouring by the share
 * itself would paint everything amber in a cohort where half the runs fail.
 */
export function relativeShare(share: number, base: number): number {
  if (base <= 0) return share > 0 ? 1 : 0;
  if (base >= 1) return share >= 1 ? 0.5 : 0;
  return share <= base ? (0.5 * share) / base : 0.5 + (0.5 * (share - base)) / (1 - base);
}

/** The cohort graph counted over `outcome`'s runs: edges labelled P(next | current), coloured by failure share against the average. */
export function cohortGraphView(g: CohortGraph, outcome: OutcomeView): { nodes: ViewNode[]; edges: ViewEdge[] } {
  const base = g.runs.all ? g.runs.failure / g.runs.all : 0;
  const nodes: ViewNode[] = g.nodes
    .filter((n) => n.kind === 'start' || pick(n.runs, outcome) > 0)
    .map((n) => {
      const runs = pick(n.runs, outcome);
      const isEnd = n.kind === 'end';
      const tone: NodeTone = n.kind === 'start' ? 'start' : isEnd ? endTone(n.label) : n.kind === 'other' ? 'other' : 'tool';
      const share = n.runs.all ? n.runs.failure / n.runs.all : 0;
      return {
        id: n.id,
        label: n.label,
        sub: isEnd || n.kind === 'start'
          ? `${formatInt(runs)} run${runs === 1 ? '' : 's'}`
          : `${formatInt(pick(n.calls, outcome))} calls · ${formatInt(runs)} runs`,
        tone,
        title: `${n.label}: ${formatInt(n.calls.all)} calls in ${formatInt(n.runs.all)} runs, ${formatPercent(share)} of them failed`,
        share: isEnd || n.kind === 'start' ? null : relativeShare(share, base),
      };
    });
  const edges: ViewEdge[] = g.edges
    .filter((e) => pick(e.count, outcome) > 0)
    .map((e) => {
      const p = e.probability[outcome];
      return {
        id: e.id,
        from: e.from,
        to: e.to,
        count: pick(e.count, outcome),
        label: formatPercent(p, p < 0.1 ? 1 : 0),
        share: relativeShare(e.failure_share, base),
        title: `P(next | current) ${formatPercent(p)}; ${formatInt(pick(e.count, outcome))} transitions in ${formatInt(pick(e.runs, outcome))} runs; ${formatPercent(e.failure_share)} of the runs that took it failed`,
      };
    });
  return { nodes, edges };
}

/** A link to a run at a step, keeping the page's filters (the run page reads its project from them). */
export function stepHref(runId: string, step: number | null, filterSearch: string, project?: string): string {
  const p = new URLSearchParams(filterSearch);
  if (project) p.set('project', project);
  if (step !== null) p.set('step', String(step));
  const q = p.toString();
  return `/runs/${encodeURIComponent(runId)}${q ? `?${q}` : ''}`;
}
