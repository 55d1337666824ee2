// Places the nodes of a tool graph (docs/graphs.md) with dagre: layered from the start node at
// the top to the end nodes at the bottom, edges routed between the layers. Deterministic: dagre
// has no randomness, and nodes and edges are given in the answer's order (itself deterministic).
import dagre from '@dagrejs/dagre';

export const NODE_WIDTH = 210;
/** Room kept right of a node that has a self-edge, for its loop and label. */
export const LOOP_ROOM = 90;
export const NODE_HEIGHT = 52;

export interface LayoutEdgeIn {
  id: string;
  from: string;
  to: string;
  /** Heavier edges are kept shorter and straighter. */
  weight: number;
}

export interface Placed {
  /** Top-left corner of each node. */
  nodes: Map<string, { x: number; y: number }>;
  /** The route of each edge between two nodes (self-edges have none: drawn as a loop). */
  edges: Map<string, { x: number; y: number }[]>;
  width: number;
  height: number;
}

export function layoutGraph(nodeIds: readonly string[], edges: readonly LayoutEdgeIn[]): Placed {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  // Greedy cycle breaking by weight keeps the heavy transitions pointing down and reverses the
  // light ones, so the common path reads from top to bottom.
  g.setGraph({ rankdir: 'TB', nodesep: 40, ranksep: 64, edgesep: 16, marginx: 20, marginy: 20, acyclicer: 'greedy' });
  g.setDefaultEdgeLabel(() => ({}));
  const looped = new Set(edges.filter((e) => e.from === e.to).map((e) => e.from));
  const widthOf = (id: string) => NODE_WIDTH + (looped.has(id) ? LOOP_ROOM : 0);
  for (const id of nodeIds) g.setNode(id, { width: widthOf(id), height: NODE_HEIGHT });
  for (const e of edges) {
    if (e.from === e.to || !g.hasNode(e.from) || !g.hasNode(e.to)) continue;
    g.setEdge(e.from, e.to, { weight: Math.max(1, Math.round(Math.log2(1 + e.weight))), minlen: 1 }, e.id);
  }
  dagre.layout(g);
  const nodes = new Map<string, { x: number; y: number }>();
  for (const id of nodeIds) {
    const n = g.node(id);
    // The box on the left of its slot; a loop's room on the right.
    nodes.set(id, { x: n.x - widthOf(id) / 2, y: n.y - NODE_HEIGHT / 2 });
  }
  const routes = new Map<string, { x: number; y: number }[]>();
  for (const e of edges) {
    if (e.from === e.to) continue;
    const label = g.edge({ v: e.from, w: e.to, name: e.id });
    if (label?.points) routes.set(e.id, label.points.map((p: { x: number; y: number }) => ({ x: p.x, y: p.y })));
  }
  const graph = g.graph();
  const moved = arrangeRows(nodeIds, nodes, widthOf, MAX_PER_ROW);
  // Rows rearranged move nodes off dagre's routes: the edges are then drawn as plain curves.
  return moved ? { nodes, edges: new Map(), width: moved.width, height: moved.height } : { nodes, edges: routes, width: graph.width ?? 0, height: graph.height ?? 0 };
}

const isEnd = (id: string) => id === 'end' || id.startsWith('end:');

/** Nodes side by side in one layer at most; a layer with more is wrapped into rows. */
export const MAX_PER_ROW = 4;
const ROW_GAP = 44;
const COL_GAP = 40;

/**
 * Puts the start node alone on the first row and the end nodes on the last, and splits every
 * layer wider than `perRow` nodes into rows of `perRow` (in dagre's order, which keeps crossings
 * low), each row centred. A run's hub (the tool everything goes back to) would otherwise spread
 * twenty nodes across one line, too wide to read at any zoom that shows the whole graph; and in
 * a graph of cycles dagre may rank the start anywhere. Returns null when nothing had to move.
 */
function arrangeRows(ids: readonly string[], pos: Map<string, { x: number; y: number }>, widthOf: (id: string) => number, perRow: number): { width: number; height: number } | null {
  const layers = new Map<number, string[]>();
  const inner = ids.filter((id) => id !== 'start' && !isEnd(id));
  for (const id of inner) {
    const y = Math.round(pos.get(id)!.y);
    layers.set(y, [...(layers.get(y) ?? []), id]);
  }
  const ys = (list: string[]) => list.map((id) => pos.get(id)!.y);
  const top = Math.min(...ys(inner), Infinity);
  const bottom = Math.max(...ys(inner), -Infinity);
  const starts = ids.filter((id) => id === 'start');
  const ends = ids.filter(isEnd);
  const inPlace = starts.every((id) => pos.get(id)!.y < top) && ends.every((id) => pos.get(id)!.y > bottom);
  if (inPlace && [...layers.values()].every((l) => l.length <= perRow)) return null;
  let y = 20;
  let width = 0;
  const rows: string[][] = [];
  if (starts.length) rows.push(starts);
  for (const [, layer] of [...layers.entries()].sort((a, b) => a[0] - b[0])) {
    layer.sort((a, b) => pos.get(a)!.x - pos.get(b)!.x);
    for (let i = 0; i < layer.length; i += perRow) rows.push(layer.slice(i, i + perRow));
  }
  if (ends.length) rows.push(ends.sort((a, b) => pos.get(a)!.x - pos.get(b)!.x));
  const rowWidth = (row: string[]) => row.reduce((w, id) => w + widthOf(id), 0) + COL_GAP * (row.length - 1);
  const widest = Math.max(...rows.map(rowWidth));
  for (const row of rows) {
    let x = 20 + (widest - rowWidth(row)) / 2;
    for (const id of row) {
      pos.set(id, { x, y });
      x += widthOf(id) + COL_GAP;
    }
    width = Math.max(width, x);
    y += NODE_HEIGHT + ROW_GAP;
  }
  return { width: width + 20, height: y };
}

/**
 * The smallest count an edge needs to be drawn so that at most `max` edges are (edges to and
 * from start and end always are): a 5,000-step run has hundreds of rare transitions that would
 * hide the common paths. 1 when every edge fits.
 */
export function edgeThreshold(counts: readonly number[], max: number): number {
  if (counts.length <= max) return 1;
  const sorted = [...counts].sort((a, b) => b - a);
  // The count of the max-th edge; ties at it are dropped too, so raise by one when they overflow.
  const at = sorted[max - 1];
  return sorted.filter((c) => c >= at).length > max ? at + 1 : at;
}

/** Stroke width for an edge of `count` when the largest has `maxCount`: 1 to 9 px, logarithmic. */
export function edgeWidth(count: number, maxCount: number): number {
  if (maxCount <= 1) return 1.5;
  return 1 + (8 * Math.log(1 + count)) / Math.log(1 + maxCount);
}

const NO_FAILURE = [107, 127, 153];
const HALF = [196, 164, 108];
const ALL_FAILED = [210, 67, 58];

/** Colour for a share of failure: blue-grey (0) through amber (0.5) to red (1), never green. */
export function failureColor(share: number): string {
  const s = Math.min(1, Math.max(0, Number.isFinite(share) ? share : 0));
  const [a, b, t] = s < 0.5 ? [NO_FAILURE, HALF, s / 0.5] : [HALF, ALL_FAILED, (s - 0.5) / 0.5];
  const mix = a.map((v, i) => Math.round(v + (b[i] - v) * t));
  return `rgb(${mix[0]}, ${mix[1]}, ${mix[2]})`;
}
