// Draws a tool graph (docs/graphs.md) with React Flow at the positions dagre gives
// (lib/graph-layout.ts): nodes are boxes with a label and a line of numbers, edges have a width
// by count and a colour by failure share, self-edges are loops on a node's right side. Clicking
// a node, an edge or an edge's label selects it; the page lists what it covers.
import { memo, useMemo } from 'react';
import {
  BaseEdge, Background, Controls, EdgeLabelRenderer, getBezierPath, Handle, MarkerType, Position, ReactFlow,
  type Edge, type EdgeProps, type Node, type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { edgeThreshold, edgeWidth, failureColor, layoutGraph, NODE_HEIGHT, NODE_WIDTH } from '../lib/graph-layout.js';
import type { Selection, ViewEdge, ViewNode } from '../lib/graph-model.js';
import './graph.css';


interface Props {
  nodes: readonly ViewNode[];
  edges: readonly ViewEdge[];
  selected: Selection;
  onSelect: (s: Selection) => void;
  /** At most this many edges drawn (the rarest hidden), unless `showAll`. */
  maxEdges: number;
  showAll: boolean;
  onToggleShowAll: () => void;
  /** For tests and screen readers: what the graph is. */
  ariaLabel: string;
}

type ToolNodeData = { v: ViewNode; selected: boolean };
type FlowEdgeData = {
  v: ViewEdge;
  points: { x: number; y: number }[] | null;
  loop: { x: number; y: number } | null;
  width: number;
  color: string;
  selected: boolean;
  onSelect: (s: Selection) => void;
};

const ToolNode = memo(function ToolNode({ data }: NodeProps<Node<ToolNodeData>>) {
  const v = data.v;
  const border = v.share === null ? undefined : failureColor(v.share);
  return (
    <div className={`graph-node tone-${v.tone}${data.selected ? ' is-selected' : ''}`} title={v.title} style={border ? { borderColor: border } : undefined}>
      <Handle type="target" position={Position.Top} className="graph-handle" isConnectable={false} />
      <div className="graph-node-label">{v.label}</div>
      <div className="graph-node-sub">{v.sub}</div>
      <Handle type="source" position={Position.Bottom} className="graph-handle" isConnectable={false} />
    </div>
  );
});

/** A smooth path through dagre's points: straight ends, quadratic bends at the inner points. */
function routePath(points: { x: number; y: number }[]): string {
  if (points.length < 2) return '';
  let d = `M ${points[0].x} ${points[0].y}`;
  if (points.length === 2) return `${d} L ${points[1].x} ${points[1].y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const mid = { x: (points[i].x + points[i + 1].x) / 2, y: (points[i].y + points[i + 1].y) / 2 };
    d += ` Q ${points[i].x} ${points[i].y} ${i === points.length - 2 ? `${points[i + 1].x} ${points[i + 1].y}` : `${mid.x} ${mid.y}`}`;
  }
  return d;
}

function FlowEdge({ id, data, markerEnd, sourceX, sourceY, targetX, targetY }: EdgeProps<Edge<FlowEdgeData>>) {
  if (!data) return null;
  let path: string;
  let labelAt: { x: number; y: number };
  if (data.loop) {
    // A loop on the node's right side: out at a third of its height, back at two thirds.
    const { x, y } = data.loop;
    const r = x + NODE_WIDTH;
    path = `M ${r} ${y + NODE_HEIGHT * 0.3} C ${r + 70} ${y - 18}, ${r + 70} ${y + NODE_HEIGHT + 18}, ${r + 4} ${y + NODE_HEIGHT * 0.72}`;
    labelAt = { x: r + 54, y: y + NODE_HEIGHT / 2 };
  } else if (data.points && data.points.length >= 2) {
    path = routePath(data.points);
    labelAt = data.points[Math.floor(data.points.length / 2)];
  } else {
    const [bezier, lx, ly] = getBezierPath({ sourceX, sourceY, sourcePosition: Position.Bottom, targetX, targetY, targetPosition: Position.Top });
    path = bezier;
    labelAt = { x: lx, y: ly };
  }
  const v = data.v;
  return (
    <>
      <BaseEdge
        id={id}
        path={path}
        markerEnd={markerEnd}
        interactionWidth={Math.max(14, data.width + 8)}
        style={{ stroke: data.color, strokeWidth: data.selected ? data.width + 2 : data.width, opacity: data.selected ? 1 : 0.82 }}
      />
      <EdgeLabelRenderer>
        <button
          type="button"
          className={`graph-edge-label nodrag nopan${data.selected ? ' is-selected' : ''}`}
          data-edge-id={v.id}
          title={v.title}
          style={{ transform: `translate(-50%, -50%) translate(${labelAt.x}px, ${labelAt.y}px)`, borderColor: data.color }}
          onClick={() => data.onSelect({ kind: 'edge', id: v.id })}
        >
          {v.label}
        </button>
      </EdgeLabelRenderer>
    </>
  );
}

const nodeTypes = { tool: ToolNode };
const edgeTypes = { flow: FlowEdge };
const ALWAYS_SHOWN = (e: ViewEdge) => e.from === 'start' || e.to === 'end' || e.to.startsWith('end:');

export function GraphView({ nodes, edges, selected, onSelect, maxEdges, showAll, onToggleShowAll, ariaLabel }: Props) {
  const shown = useMemo(() => {
    const threshold = showAll ? 1 : edgeThreshold(edges.filter((e) => !ALWAYS_SHOWN(e)).map((e) => e.count), maxEdges);
    return edges.filter((e) => e.count > 0 && (ALWAYS_SHOWN(e) || e.count >= threshold || (selected?.kind === 'edge' && selected.id === e.id)));
  }, [edges, maxEdges, showAll, selected]);
  const placed = useMemo(
    () => layoutGraph(nodes.map((n) => n.id), shown.map((e) => ({ id: e.id, from: e.from, to: e.to, weight: e.count }))),
    [nodes, shown],
  );
  const maxCount = useMemo(() => shown.reduce((m, e) => Math.max(m, e.count), 1), [shown]);
  const flowNodes: Node<ToolNodeData>[] = useMemo(
    () => nodes.map((v) => ({
      id: v.id,
      type: 'tool',
      position: placed.nodes.get(v.id) ?? { x: 0, y: 0 },
      data: { v, selected: selected?.kind === 'node' && selected.id === v.id },
      draggable: false,
      connectable: false,
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
    })),
    [nodes, placed, selected],
  );
  const flowEdges: Edge<FlowEdgeData>[] = useMemo(
    () => shown.map((v) => {
      const color = failureColor(v.share);
      return {
        id: v.id,
        source: v.from,
        target: v.to,
        type: 'flow',
        markerEnd: { type: MarkerType.ArrowClosed, color, width: 16, height: 16, markerUnits: 'userSpaceOnUse' },
        data: {
          v,
          points: placed.edges.get(v.id) ?? null,
          loop: v.from === v.to ? placed.nodes.get(v.from) ?? null : null,
          width: edgeWidth(v.count, maxCount),
          color,
          selected: selected?.kind === 'edge' && selected.id === v.id,
          onSelect,
        },
      };
    }),
    [shown, placed, maxCount, selected, onSelect],
  );
  const hidden = edges.filter((e) => e.count > 0).length - shown.length;
  return (
    <>
    <div className="graph-frame" role="figure" aria-label={ariaLabel} data-nodes={nodes.length} data-edges-shown={shown.length} data-edges-hidden={hidden}>
      <ReactFlow
        nodes={flowNodes}
        edges={flowEdges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodeClick={(_, n) => onSelect({ kind: 'node', id: n.id })}
        onEdgeClick={(_, e) => onSelect({ kind: 'edge', id: e.id })}
        onPaneClick={() => onSelect(null)}
        nodesDraggable={false}
        nodesConnectable={false}
        fitView
        fitViewOptions={{ padding: 0.12, maxZoom: 1 }}
        minZoom={0.05}
        maxZoom={2}
      >
        <Background gap={24} size={1} />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
    <HiddenEdgesNote hidden={hidden} showAll={showAll} onToggle={onToggleShowAll} />
    </>
  );
}

/** The sentence under a graph that says how many rare edges are hidden, with a button to show them. */
function HiddenEdgesNote({ hidden, showAll, onToggle }: { hidden: number; showAll: boolean; onToggle: () => void }) {
  if (hidden === 0 && !showAll) return null;
  return (
    <p className="small muted graph-note">
      {showAll ? 'Every transition is drawn. ' : `${hidden} rare transition${hidden === 1 ? ' is' : 's are'} hidden to keep the graph readable. `}
      <button type="button" className="link-button" onClick={onToggle}>
        {showAll ? 'Hide the rare ones' : 'Draw them all'}
      </button>
    </p>
  );
}
