// The graph of what a run did (docs/graphs.md): one node per tool (a tool that works on files,
// one node per file it touched most), an edge for each transition from one call to the next
// with how often it happened and what the calls it led to cost, plus a start node and an end
// node named by the run's outcome. Caps keep a 5,000-step run readable: the most frequent tools
// and files get their own node, the rest are merged. Pure and deterministic: the same calls in
// the same order give the same graph, nodes in order of first use.
import type { RunGraphEdge, RunGraphNode } from '../schemas/tool-graph.js';

/** One tool call of a run, in run order (by step, then by time within the step). */
export interface GraphCall {
  /** null for a call recorded without a step. */
  step: number | null;
  /** '' for a step without any tool call. */
  tool: string;
  /** The call's key argument (analytics/key-argument.ts), '' when it has none. */
  key: string;
  cost_usd: number;
  tokens: number;
  duration_ms: number;
  error: boolean;
}

export interface ToolGraphOptions {
  /** Tools with their own node; the rest share one "other" node. */
  maxTools?: number;
  /** (tool, file) pairs with their own node; a split tool's other files share one node. */
  maxFiles?: number;
  /** Steps listed per node and edge (the totals count them all). */
  stepListCap?: number;
}

export const DEFAULT_MAX_TOOLS = 12;
export const DEFAULT_MAX_FILES = 8;
export const STEP_LIST_CAP = 500;

export const START_ID = 'start';
export const END_ID = 'end';
export const NO_TOOL_ID = 'no_tool';
export const OTHER_ID = 'other';

/**
 * Whether a key argument names a file: one token with a slash, or a name with an extension. Only
 * those split a tool into nodes; commands and queries are too varied to make places of.
 */
export function isFileLike(key: string): boolean {
  if (key === '' || key.length > 200 || /\s/.test(key) || key.includes('://')) return false;
  return key.includes('/') || /^[\w.-]*\w\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(key);
}

/** The last two segments of a path: enough to tell files apart on a node's label. */
export function shortPath(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts.length <= 2 ? path : `…/${parts.slice(-2).join('/')}`;
}

interface Acc {
  count: number;
  errors: number;
  cost: number;
  tokens: number;
  ms: number;
  steps: number[];
  stepsTotal: number;
  lastStep: number | null;
}

const newAcc = (): Acc => ({ count: 0, errors: 0, cost: 0, tokens: 0, ms: 0, steps: [], stepsTotal: 0, lastStep: null });

function add(a: Acc, c: GraphCall, cap: number): void {
  a.count++;
  if (c.error) a.errors++;
  a.cost += c.cost_usd;
  a.tokens += c.tokens;
  a.ms += c.duration_ms;
  if (c.step !== null) {
    // One entry per step: a step with two calls at the same node lists once.
    if (a.lastStep !== c.step) {
      a.lastStep = c.step;
      a.stepsTotal++;
      if (a.steps.length < cap) a.steps.push(c.step);
    }
  }
}

const round = (x: number) => Number(x.toPrecision(6));

/** Ranks keys by count (descending), then by name, so ties never depend on input order. */
function top<K extends string>(counts: Map<K, number>, n: number): Set<K> {
  return new Set([...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, n).map(([k]) => k));
}

export interface BuiltRunGraph {
  nodes: RunGraphNode[];
  edges: RunGraphEdge[];
  merged_nodes: number;
}

/** The run graph of `calls` (in run order), ending at an end node labelled `outcome`. */
export function buildToolGraph(calls: readonly GraphCall[], outcome: string, o: ToolGraphOptions = {}): BuiltRunGraph {
  const maxTools = o.maxTools ?? DEFAULT_MAX_TOOLS;
  const maxFiles = o.maxFiles ?? DEFAULT_MAX_FILES;
  const cap = o.stepListCap ?? STEP_LIST_CAP;

  const toolCounts = new Map<string, number>();
  for (const c of calls) if (c.tool !== '') toolCounts.set(c.tool, (toolCounts.get(c.tool) ?? 0) + 1);
  const keptTools = top(toolCounts, maxTools);
  const fileCounts = new Map<string, number>();
  for (const c of calls) {
    if (keptTools.has(c.tool) && isFileLike(c.key)) {
      const id = fileId(c.tool, c.key);
      fileCounts.set(id, (fileCounts.get(id) ?? 0) + 1);
    }
  }
  const keptFiles = top(fileCounts, maxFiles);
  const splitTools = new Set([...keptFiles].map((id) => id.slice('file:'.length, id.indexOf('\u0000'))));

  const nodeOf = (c: GraphCall): string => {
    if (c.tool === '') return NO_TOOL_ID;
    if (!keptTools.has(c.tool)) return OTHER_ID;
    if (isFileLike(c.key) && keptFiles.has(fileId(c.tool, c.key))) return fileId(c.tool, c.key);
    return splitTools.has(c.tool) ? `other:${c.tool}` : `tool:${c.tool}`;
  };

  const nodes = new Map<string, { acc: Acc; kind: RunGraphNode['kind']; tool: string; key: string; label: string }>();
  const edges = new Map<string, { from: string; to: string; acc: Acc; streak: number; maxStreak: number }>();
  const order = new Map<string, number>();
  const touch = (id: string, c: GraphCall | null) => {
    let n = nodes.get(id);
    if (!n) {
      order.set(id, order.size);
      n = { acc: newAcc(), ...describe(id, c) };
      nodes.set(id, n);
    }
    return n;
  };
  touch(START_ID, null).acc.count = 1;
  let prev = START_ID;
  let streak = 0;
  for (const c of calls) {
    const id = nodeOf(c);
    add(touch(id, c).acc, c, cap);
    const eid = `${prev}->${id}`;
    let e = edges.get(eid);
    if (!e) edges.set(eid, (e = { from: prev, to: id, acc: newAcc(), streak: 0, maxStreak: 0 }));
    add(e.acc, c, cap);
    streak = id === prev ? streak + 1 : 1;
    if (id === prev) e.maxStreak = Math.max(e.maxStreak, streak);
    prev = id;
  }
  touch(END_ID, null).acc.count = 1;
  const endEdge = `${prev}->${END_ID}`;
  edges.set(endEdge, { from: prev, to: END_ID, acc: { ...newAcc(), count: 1 }, streak: 0, maxStreak: 0 });
  const end = nodes.get(END_ID)!;
  end.label = outcome || 'end';

  const rank = (id: string) => order.get(id) ?? 0;
  const outNodes: RunGraphNode[] = [...nodes.entries()]
    .sort((a, b) => rank(a[0]) - rank(b[0]))
    .map(([id, n]) => ({
      id, kind: n.kind, tool: n.tool, key: n.key, label: n.label,
      calls: n.acc.count, errors: n.acc.errors, cost_usd: round(n.acc.cost), tokens: n.acc.tokens, duration_ms: round(n.acc.ms),
      steps: n.acc.steps, steps_total: n.acc.stepsTotal,
    }));
  const outEdges: RunGraphEdge[] = [...edges.entries()]
    .sort((a, b) => rank(a[1].from) - rank(b[1].from) || rank(a[1].to) - rank(b[1].to))
    .map(([id, e]) => ({
      id, from: e.from, to: e.to, count: e.acc.count, errors: e.acc.errors,
      cost_usd: round(e.acc.cost), tokens: e.acc.tokens, duration_ms: round(e.acc.ms),
      max_streak: e.from === e.to ? e.maxStreak : 0,
      steps: e.acc.steps, steps_total: e.acc.stepsTotal,
    }));
  const merged = [...toolCounts.keys()].filter((t) => !keptTools.has(t)).length + [...fileCounts.keys()].filter((f) => !keptFiles.has(f)).length;
  return { nodes: outNodes, edges: outEdges, merged_nodes: merged };
}

function fileId(tool: string, key: string): string {
  return `file:${tool}\u0000${key}`;
}

function describe(id: string, c: GraphCall | null): { kind: RunGraphNode['kind']; tool: string; key: string; label: string } {
  if (id === START_ID) return { kind: 'start', tool: '', key: '', label: 'start' };
  if (id === END_ID) return { kind: 'end', tool: '', key: '', label: 'end' };
  if (id === NO_TOOL_ID) return { kind: 'no_tool', tool: '', key: '', label: 'no tool call' };
  if (id === OTHER_ID) return { kind: 'other', tool: '', key: '', label: 'other tools' };
  const tool = c?.tool ?? '';
  if (id.startsWith('other:')) return { kind: 'other', tool, key: '', label: `${tool} · other files` };
  if (id.startsWith('file:')) return { kind: 'file', tool, key: c?.key ?? '', label: `${tool} · ${shortPath(c?.key ?? '')}` };
  return { kind: 'tool', tool, key: '', label: tool };
}
