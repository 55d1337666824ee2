// One run: header, per-step chart, and the full step list with tool calls.
import { useMemo, useRef, useState } from 'react';
import { Link, useOutletContext, useParams } from 'react-router-dom';
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import type { FilterState } from '../hooks/use-filters.js';
import { groupToolCallsByStep, stepChartRows } from '../lib/chart-data.js';
import { formatInt } from '../lib/format.js';
import { RunHeader } from '../run/run-header.js';
import { StepChart } from '../run/step-chart.js';
import { StepList, type JumpRequest } from '../run/step-list.js';
import { STEPS_WINDOW, useRunSteps } from '../run/use-run-steps.js';

export function RunPage() {
  const { runId = '' } = useParams();
  const { filterSearch, filters } = useOutletContext<FilterState>();
  const project = filters.dims.project;
  const { state, reload } = useApi(`run:${project ?? ''}:${runId}`, (signal) => api.run(runId, { project }, { signal }));
  const [jump, setJump] = useState<JumpRequest | null>(null);
  const nonce = useRef(0);
  const detail = state.status === 'ok' || state.data?.run.run_id === runId ? state.data : undefined;

  const loaded = useRunSteps(detail, project);
  const callsByStep = useMemo(() => groupToolCallsByStep(loaded.toolCalls), [loaded.toolCalls]);
  const chartRows = useMemo(() => stepChartRows(loaded.steps, loaded.toolCalls), [loaded.steps, loaded.toolCalls]);
  const goTo = (step: number) => setJump({ step, nonce: ++nonce.current });

  return (
    <div className="page">
      <div className="crumbs">
        <Link to={{ pathname: '/runs', search: filterSearch }}>← Runs</Link>
      </div>
      {state.status === 'error' ? (
        state.error.isNotFound ? (
          <Empty title={`Run “${runId}” not found`}>It may not have been ingested yet, or it belongs to another project.</Empty>
        ) : (
          <ErrorState error={state.error} onRetry={reload} />
        )
      ) : !detail ? (
        <Loading label="Loading run…" />
      ) : (
        <>
          <RunHeader detail={detail} search={filterSearch} />
          {loaded.hasMore && (
            <div className="notice">
              This run has {formatInt(detail.run.steps)} steps; the first {formatInt(loaded.steps.length)} are loaded.{' '}
              <button type="button" className="link-btn" onClick={loaded.loadMore} disabled={loaded.loadingMore}>
                {loaded.loadingMore ? 'Loading…' : `Load the next ${formatInt(Math.min(STEPS_WINDOW, detail.run.steps - loaded.steps.length))}`}
              </button>
            </div>
          )}
          <StepChart rows={chartRows} onSelect={goTo} />
          <GoToStep max={Math.max(detail.run.steps - 1, chartRows.length ? chartRows[chartRows.length - 1].step : 0)} onGo={goTo} hidden={chartRows.length < 20} />
          <StepList
            steps={loaded.steps}
            totalSteps={detail.run.steps}
            callsByStep={callsByStep}
            jump={jump}
            more={{ hasMore: loaded.hasMore, loading: loaded.loadingMore, error: loaded.error, load: loaded.loadMore }}
          />
        </>
      )}
    </div>
  );
}

function GoToStep({ max, onGo, hidden }: { max: number; onGo: (step: number) => void; hidden: boolean }) {
  const [v, setV] = useState('');
  if (hidden) return null;
  return (
    <form
      className="goto"
      onSubmit={(e) => {
        e.preventDefault();
        const n = Number.parseInt(v, 10);
        if (Number.isFinite(n)) onGo(Math.max(0, Math.min(max, n)));
      }}
    >
      <label className="small muted">
        Go to step{' '}
        <input type="number" min={0} max={max} value={v} onChange={(e) => setV(e.target.value)} aria-label="Go to step" />
      </label>
      <button type="submit" className="btn btn-quiet">
        Go
      </button>
    </form>
  );
}
