// Tool paths: the tools of the runs in view and the transitions between them (docs/graphs.md),
// counted over all runs, the successful ones or the failing ones, each edge labelled with
// P(next | current) and coloured by the share of the runs that took it and failed. Clicking a
// node or an edge lists example runs, each a link to the run at the step where it happened.
import { useCallback, useMemo, useState } from 'react';
import { Link, useOutletContext } from 'react-router-dom';
import type { CohortExample, CohortGraph, CohortGraphEdge, CohortGraphNode, OutcomeCounts } from '../../../schemas/tool-graph.js';
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import { GraphLegend } from '../graph/graph-legend.js';
import { GraphView } from '../graph/graph-view.js';
import type { FilterState } from '../hooks/use-filters.js';
import { rangeLabel } from '../lib/filters.js';
import { cohortGraphView, stepHref, type OutcomeView, type Selection } from '../lib/graph-model.js';
import { formatInt, formatPercent } from '../lib/format.js';
import '../graph/graph.css';

const MAX_EDGES = 45;
const OUTCOMES: { value: OutcomeView; label: string }[] = [
  { value: 'all', label: 'All runs' },
  { value: 'success', label: 'Successful runs' },
  { value: 'failure', label: 'Failing runs' },
];
/** An edge needs this many runs to be ranked among those that precede failure. */
const MIN_RUNS_RANKED = 3;

export function PathsPage() {
  const { filters, now, key, filterSearch } = useOutletContext<FilterState>();
  const graph = useApi(`cohort-graph${key}`, (signal) => api.cohortGraph(filters, now, { signal }));
  const data = graph.state.data;
  return (
    <div className="page">
      <div className="page-head">
        <h1>Tool paths</h1>
        <span className="page-sub">
          which tools follow which in the runs in view, and which paths end in failure · {rangeLabel(filters)}
        </span>
        {graph.state.status === 'loading' && data && <Loading compact label="Updating…" />}
      </div>
      {graph.state.status === 'error' ? (
        <ErrorState error={graph.state.error} onRetry={graph.reload} />
      ) : !data ? (
        <Loading label="Loading tool paths…" />
      ) : data.runs_read === 0 ? (
        <Empty title="No runs in this view">No run matches the filters ({rangeLabel(filters)}).</Empty>
      ) : (
        <PathsBody graph={data} filterSearch={filterSearch} />
      )}
    </div>
  );
}

function PathsBody({ graph, filterSearch }: { graph: CohortGraph; filterSearch: string }) {
  const [outcome, setOutcome] = useState<OutcomeView>('all');
  const [selected, setSelected] = useState<Selection>(null);
  const [showAll, setShowAll] = useState(false);
  const view = useMemo(() => cohortGraphView(graph, outcome), [graph, outcome]);
  const onSelect = useCallback((s: Selection) => setSelected(s), []);
  const label = (id: string) => graph.nodes.find((n) => n.id === id)?.label ?? id;
  const node = selected?.kind === 'node' ? graph.nodes.find((n) => n.id === selected.id) : undefined;
  const edge = selected?.kind === 'edge' ? graph.edges.find((e) => e.id === selected.id) : undefined;
  const risky = graph.edges
    .filter((e) => e.runs.all >= MIN_RUNS_RANKED && !e.to.startsWith('end:'))
    .sort((a, b) => b.failure_share - a.failure_share || b.runs.all - a.runs.all || a.id.localeCompare(b.id))
    .slice(0, 8);
  return (
    <>
      <div className="graph-toolbar">
        <div className="segmented" role="group" aria-label="Runs counted">
          {OUTCOMES.map((o) => (
            <button key={o.value} type="button" className={outcome === o.value ? 'active' : undefined} aria-pressed={outcome === o.value} onClick={() => setOutcome(o.value)}>
              {o.label} ({formatInt(graph.runs[o.value])})
            </button>
          ))}
        </div>
        <span className="small muted">
          {graph.runs_read < graph.runs_matched
            ? `the most recent ${formatInt(graph.runs_read)} of ${formatInt(graph.runs_matched)} runs matched`
            : `${formatInt(graph.runs_read)} runs`}
          {graph.merged_tools > 0 && ` · ${formatInt(graph.merged_tools)} rarer tools merged into “other tools”`}
        </span>
      </div>
      <GraphLegend kind="cohort" base={graph.runs.all ? graph.runs.failure / graph.runs.all : 0} />
      <div className="graph-layout">
        <div>
          <GraphView
            nodes={view.nodes}
            edges={view.edges}
            selected={selected}
            onSelect={onSelect}
            maxEdges={MAX_EDGES}
            showAll={showAll}
            onToggleShowAll={() => setShowAll((v) => !v)}
            ariaLabel={`Tool paths of ${OUTCOMES.find((o) => o.value === outcome)!.label.toLowerCase()}`}
          />
        </div>
        <aside className="card graph-panel" aria-label="Selection">
          {node ? (
            <CohortNodePanel node={node} filterSearch={filterSearch} />
          ) : edge ? (
            <CohortEdgePanel edge={edge} label={label} filterSearch={filterSearch} />
          ) : (
            <>
              <h2>Transitions most followed by failure</h2>
              {risky.length === 0 ? (
                <p className="small muted">No transition was taken by {MIN_RUNS_RANKED} runs or more.</p>
              ) : (
                <ul className="graph-examples">
                  {risky.map((e) => (
                    <li key={e.id}>
                      <button type="button" className="link-button" onClick={() => setSelected({ kind: 'edge', id: e.id })}>
                        {label(e.from)} → {label(e.to)}
                      </button>{' '}
                      {formatPercent(e.failure_share, 0)} of {formatInt(e.runs.all)} runs failed
                    </li>
                  ))}
                </ul>
              )}
              <p className="small muted">Click a node or an edge (or its label) to list example runs.</p>
            </>
          )}
        </aside>
      </div>
    </>
  );
}

function Counts({ c, of }: { c: OutcomeCounts; of?: string }) {
  return (
    <>
      {formatInt(c.all)} ({formatInt(c.success)} successful, {formatInt(c.failure)} failing){of ? ` ${of}` : ''}
    </>
  );
}

function Examples({ examples, filterSearch }: { examples: CohortExample[]; filterSearch: string }) {
  if (examples.length === 0) return <p className="small muted">No example.</p>;
  return (
    <ul className="graph-examples" aria-label="Example runs">
      {examples.map((x) => (
        <li key={`${x.project}/${x.run_id}`}>
          <Link to={stepHref(x.run_id, x.step, filterSearch, x.project)} className="mono">
            {x.run_id}
          </Link>{' '}
          <span className="small muted">
            {x.step === null ? '' : `step ${x.step} · `}
            {x.failed ? 'failed' : 'succeeded'}
          </span>
        </li>
      ))}
    </ul>
  );
}

function CohortNodePanel({ node, filterSearch }: { node: CohortGraphNode; filterSearch: string }) {
  return (
    <>
      <h2>{node.label}</h2>
      <dl>
        <dt>Calls</dt>
        <dd>
          <Counts c={node.calls} />
        </dd>
        <dt>Runs</dt>
        <dd>
          <Counts c={node.runs} />
        </dd>
        <dt>Failed after</dt>
        <dd>{formatPercent(node.runs.all ? node.runs.failure / node.runs.all : 0)} of its runs</dd>
      </dl>
      <h3 className="small">Example runs (the first call)</h3>
      <Examples examples={node.examples} filterSearch={filterSearch} />
    </>
  );
}

function CohortEdgePanel({ edge, label, filterSearch }: { edge: CohortGraphEdge; label: (id: string) => string; filterSearch: string }) {
  return (
    <>
      <h2>
        {label(edge.from)} → {label(edge.to)}
      </h2>
      <dl>
        <dt>P(next | current)</dt>
        <dd>
          {formatPercent(edge.probability.all)} all · {formatPercent(edge.probability.success)} successful · {formatPercent(edge.probability.failure)} failing
        </dd>
        <dt>Transitions</dt>
        <dd>
          <Counts c={edge.count} />
        </dd>
        <dt>Runs</dt>
        <dd>
          <Counts c={edge.runs} />
        </dd>
        <dt>Failed after</dt>
        <dd>{formatPercent(edge.failure_share)} of the runs that took it</dd>
      </dl>
      <h3 className="small">Example runs (where they first took it)</h3>
      <Examples examples={edge.examples} filterSearch={filterSearch} />
    </>
  );
}
