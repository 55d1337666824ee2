// The graph of one run (docs/graphs.md): its tools and files as nodes, the transitions between
// calls as edges, loops as self-edges with their repetitions and cost. Clicking a node or an edge
// lists its steps, each a link to the run at that step.
import { useCallback, useMemo, useState } from 'react';
import { Link, useOutletContext, useParams } from 'react-router-dom';
import type { RunGraph, RunGraphEdge, RunGraphNode } from '../../../schemas/tool-graph.js';
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import { GraphView } from '../graph/graph-view.js';
import { GraphLegend } from '../graph/graph-legend.js';
import type { FilterState } from '../hooks/use-filters.js';
import { runGraphView, stepHref, type Selection } from '../lib/graph-model.js';
import { formatDuration, formatInt, formatTokens, formatUsd } from '../lib/format.js';
import '../graph/graph.css';

/** Transitions drawn before the rarest are hidden. */
const MAX_EDGES = 45;

export function RunGraphPage() {
  const { runId = '' } = useParams();
  const { filters, filterSearch } = useOutletContext<FilterState>();
  const project = filters.dims.project;
  const graph = useApi(`run-graph:${project ?? ''}:${runId}`, (signal) => api.runGraph(runId, project, { signal }));
  const data = graph.state.data;
  return (
    <div className="page">
      <div className="page-head">
        <Link to={{ pathname: `/runs/${encodeURIComponent(runId)}`, search: filterSearch }}>← Run</Link>
        <h1>
          Graph of <span className="mono">{runId}</span>
        </h1>
        {data && (
          <span className="page-sub">
            {formatInt(data.steps)} steps · {formatInt(data.tool_calls)} tool calls · ended {data.outcome}
            {data.merged_nodes > 0 && ` · ${formatInt(data.merged_nodes)} rarer tools or files merged into “other” nodes`}
          </span>
        )}
      </div>
      {graph.state.status === 'error' ? (
        graph.state.error.isNotFound ? (
          <Empty title={`Run “${runId}” not found`}>It may not have been ingested yet, or it belongs to another project.</Empty>
        ) : (
          <ErrorState error={graph.state.error} onRetry={graph.reload} />
        )
      ) : !data ? (
        <Loading label="Loading the run graph…" />
      ) : (
        <RunGraphBody graph={data} filterSearch={filterSearch} />
      )}
    </div>
  );
}

function RunGraphBody({ graph, filterSearch }: { graph: RunGraph; filterSearch: string }) {
  const [selected, setSelected] = useState<Selection>(null);
  const [showAll, setShowAll] = useState(false);
  const view = useMemo(() => runGraphView(graph), [graph]);
  const onSelect = useCallback((s: Selection) => setSelected(s), []);
  const node = selected?.kind === 'node' ? graph.nodes.find((n) => n.id === selected.id) : undefined;
  const edge = selected?.kind === 'edge' ? graph.edges.find((e) => e.id === selected.id) : undefined;
  const loops = graph.edges.filter((e) => e.from === e.to).sort((a, b) => b.count - a.count || a.id.localeCompare(b.id));
  const label = (id: string) => graph.nodes.find((n) => n.id === id)?.label ?? id;
  return (
    <>
      <GraphLegend kind="run" />
      <div className="graph-layout">
        <div>
          <GraphView nodes={view.nodes} edges={view.edges} selected={selected} onSelect={onSelect} maxEdges={MAX_EDGES} showAll={showAll} onToggleShowAll={() => setShowAll((v) => !v)} ariaLabel="Run graph" />
        </div>
        <aside className="card graph-panel" aria-label="Selection">
          {node ? (
            <NodePanel node={node} graph={graph} filterSearch={filterSearch} />
          ) : edge ? (
            <EdgePanel edge={edge} graph={graph} label={label} filterSearch={filterSearch} />
          ) : (
            <>
              <h2>Loops</h2>
              {loops.length === 0 ? (
                <p className="small muted">No tool or file was used twice in a row.</p>
              ) : (
                <ul className="graph-examples">
                  {loops.map((e) => (
                    <li key={e.id}>
                      <button type="button" className="link-button" onClick={() => setSelected({ kind: 'edge', id: e.id })}>
                        {label(e.from)}
                      </button>{' '}
                      ↻ ×{formatInt(e.count)} (longest {formatInt(e.max_streak)} in a row) · {formatUsd(e.cost_usd)}
                    </li>
                  ))}
                </ul>
              )}
              <p className="small muted">Click a node or an edge (or its label) to list its steps.</p>
            </>
          )}
        </aside>
      </div>
    </>
  );
}

function StepLinks({ runId, project, steps, total, filterSearch }: { runId: string; project: string; steps: number[]; total: number; filterSearch: string }) {
  if (total === 0) return <p className="small muted">No step.</p>;
  return (
    <>
      <ul className="graph-steps" aria-label="Steps">
        {steps.map((s) => (
          <li key={s}>
            <Link to={stepHref(runId, s, filterSearch, project)}>{s}</Link>
          </li>
        ))}
      </ul>
      {total > steps.length && <p className="small muted">the first {formatInt(steps.length)} of {formatInt(total)} steps</p>}
    </>
  );
}

function NodePanel({ node, graph, filterSearch }: { node: RunGraphNode; graph: RunGraph; filterSearch: string }) {
  return (
    <>
      <h2>{node.label}</h2>
      {node.key && <p className="small mono wrap-anywhere">{node.key}</p>}
      <dl>
        <dt>Calls</dt>
        <dd>{formatInt(node.calls)}</dd>
        <dt>Failed</dt>
        <dd>{formatInt(node.errors)}</dd>
        <dt>Cost</dt>
        <dd>{formatUsd(node.cost_usd)}</dd>
        <dt>Tokens</dt>
        <dd>{formatTokens(node.tokens)}</dd>
        <dt>Time</dt>
        <dd>{formatDuration(node.duration_ms)}</dd>
      </dl>
      <h3 className="small">Steps ({formatInt(node.steps_total)})</h3>
      <StepLinks runId={graph.run_id} project={graph.project} steps={node.steps} total={node.steps_total} filterSearch={filterSearch} />
    </>
  );
}

function EdgePanel({ edge, graph, label, filterSearch }: { edge: RunGraphEdge; graph: RunGraph; label: (id: string) => string; filterSearch: string }) {
  const loop = edge.from === edge.to;
  return (
    <>
      <h2>{loop ? `${label(edge.from)} ↻` : `${label(edge.from)} → ${label(edge.to)}`}</h2>
      <dl>
        <dt>{loop ? 'Repetitions' : 'Times'}</dt>
        <dd>{formatInt(edge.count)}</dd>
        {loop && (
          <>
            <dt>Longest streak</dt>
            <dd>{formatInt(edge.max_streak)} in a row</dd>
          </>
        )}
        <dt>Failed calls</dt>
        <dd>{formatInt(edge.errors)}</dd>
        <dt>Cost</dt>
        <dd>{formatUsd(edge.cost_usd)}</dd>
        <dt>Tokens</dt>
        <dd>{formatTokens(edge.tokens)}</dd>
        <dt>Time</dt>
        <dd>{formatDuration(edge.duration_ms)}</dd>
      </dl>
      <h3 className="small">Steps it led to ({formatInt(edge.steps_total)})</h3>
      <StepLinks runId={graph.run_id} project={graph.project} steps={edge.steps} total={edge.steps_total} filterSearch={filterSearch} />
    </>
  );
}
