// One run: header, what the analyzer found (ending, loops), the per-step chart and the
// virtualised step list, compact (a line per step) or full (a card per step): `view=compact|full`
// in the URL, compact by default for long runs. `?step=N` (or `#step-N`) opens the run at the
// step stored as N (0-based; shown as N+1).
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useNavigate, useOutletContext, useParams } from 'react-router-dom';
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import type { FilterState } from '../hooks/use-filters.js';
import { viewMode, type ViewMode } from '../lib/compact-rows.js';
import { displayStep, storedStep } from '../lib/step-label.js';
import { loopOfStep, outlineRows, stepTarget } from '../lib/step-outline.js';
import { RunFindings } from '../run/run-findings.js';
import { RunHeader } from '../run/run-header.js';
import { RunSubagents, SubagentLinksProvider } from '../run/run-subagents.js';
import { StepChart } from '../run/step-chart.js';
import { FindInRun } from '../run/find-in-run.js';
import { StepList, type JumpRequest } from '../run/step-list.js';
import { ToolCallView } from '../run/tool-call-view.js';
import { STEP_WINDOW, useStepWindows } from '../run/use-step-windows.js';
import '../run/run.css';

export function RunPage() {
  const { runId = '' } = useParams();
  const { filterSearch, filters } = useOutletContext<FilterState>();
  const location = useLocation();
  const navigate = useNavigate();
  const project = filters.dims.project;
  // The run (with its first window of steps) and the outline of all its steps, in parallel.
  const run = useApi(`run:${project ?? ''}:${runId}`, (signal) => api.run(runId, { project, stepsLimit: STEP_WINDOW }, { signal }));
  const outline = useApi(`steps:${project ?? ''}:${runId}`, (signal) => api.stepIndex(runId, project, { signal }));
  const detail = run.state.data?.run.run_id === runId ? run.state.data : undefined;
  const index = outline.state.data?.run_id === runId ? outline.state.data : undefined;

  const seed = useMemo(() => (detail && detail.steps.length ? { steps: detail.steps, tool_calls: detail.tool_calls } : undefined), [detail]);
  const windows = useStepWindows(runId, detail?.run.project ?? project, seed);
  const rows = useMemo(() => (index ? outlineRows(index) : []), [index]);
  const loops = useMemo(() => detail?.analysis?.loops ?? [], [detail]);
  const loopByStep = useMemo(() => loopOfStep(loops), [loops]);
  const endStep = index && index.step.length ? index.step[index.step.length - 1] : undefined;

  const stepLink = useMemo(() => {
    const base = new URLSearchParams(location.search);
    base.delete('step');
    return (step: number) => {
      const p = new URLSearchParams(base);
      p.set('step', String(step));
      return `${location.pathname}?${p.toString()}`;
    };
  }, [location.pathname, location.search]);

  // The step the URL points at; a new target (link, back/forward) scrolls to it.
  const [jump, setJump] = useState<JumpRequest | null>(null);
  const nonce = useRef(0);
  const target = stepTarget(location.search, location.hash);
  useEffect(() => {
    if (target !== null && index) setJump({ step: target, nonce: ++nonce.current });
  }, [target, index]);
  const goTo = (step: number) => {
    if (step === target) setJump({ step, nonce: ++nonce.current });
    else navigate(stepLink(step), { replace: true });
  };
  // One function for the step chart's whole life, calling the latest goTo: the chart (memo) then
  // does not draw again each time the page re-renders (every step window that arrives).
  const goToRef = useRef(goTo);
  goToRef.current = goTo;
  const selectStep = useCallback((step: number) => goToRef.current(step), []);

  const mode = viewMode(location.search, index?.step.length ?? 0);
  const setMode = (m: ViewMode) => {
    const p = new URLSearchParams(location.search);
    p.set('view', m);
    navigate({ pathname: location.pathname, search: `?${p.toString()}`, hash: location.hash }, { replace: true });
  };

  const stepless = windows.loaded.get(0)?.calls.get(null) ?? [];
  const error = run.state.status === 'error' ? run.state.error : undefined;

  return (
    <div className="page run-page">
      <div className="crumbs">
        <Link to={{ pathname: '/runs', search: filterSearch }}>← Runs</Link>
      </div>
      {error ? (
        error.isNotFound ? (
          <Empty title={`Run “${runId}” not found`}>It may not have been ingested yet, or it belongs to another project.</Empty>
        ) : (
          <ErrorState error={error} onRetry={run.reload} />
        )
      ) : !detail ? (
        <Loading label="Loading run…" />
      ) : (
        <SubagentLinksProvider detail={detail} search={filterSearch}>
          <RunHeader detail={detail} search={filterSearch} />
          <RunFindings detail={detail} endStep={endStep} stepLink={stepLink} />
          <RunSubagents detail={detail} search={filterSearch} />
          {outline.state.status === 'error' ? (
            <ErrorState error={outline.state.error} onRetry={outline.reload} title="Steps unavailable" />
          ) : !index ? (
            <Loading label="Loading steps…" />
          ) : (
            <>
              <StepChart rows={rows} loops={loops} onSelect={selectStep} />
              <div className="run-tools">
                <FindInRun runId={runId} project={detail.run.project} onGo={goTo} stepLink={stepLink} />
                <GoToStep max={endStep ?? 0} onGo={goTo} hidden={rows.length < 20} />
                <ViewToggle mode={mode} onChange={setMode} />
              </div>
              <StepList index={index} windows={windows} loops={loops} loopByStep={loopByStep} endStep={endStep} jump={jump} stepLink={stepLink} mode={mode} />
              {stepless.length > 0 && (
                <div className="card orphan-calls">
                  <h3>Tool calls without a recorded step</h3>
                  {stepless.map((c) => (
                    <ToolCallView key={c.call_id} call={c} />
                  ))}
                </div>
              )}
            </>
          )}
        </SubagentLinksProvider>
      )}
    </div>
  );
}

function ViewToggle({ mode, onChange }: { mode: ViewMode; onChange: (m: ViewMode) => void }) {
  return (
    <div className="segmented view-toggle" role="group" aria-label="Step view">
      {(['compact', 'full'] as const).map((m) => (
        <button key={m} type="button" className={mode === m ? 'active' : undefined} aria-pressed={mode === m} onClick={() => onChange(m)}>
          {m === 'compact' ? 'Compact' : 'Full'}
        </button>
      ))}
    </div>
  );
}

/** The box takes a step as shown (from 1) and goes to its stored index. */
function GoToStep({ max, onGo, hidden }: { max: number; onGo: (step: number) => void; hidden: boolean }) {
  const [v, setV] = useState('');
  if (hidden) return null;
  const top = displayStep(max);
  return (
    <form
      className="goto"
      onSubmit={(e) => {
        e.preventDefault();
        const n = Number.parseInt(v, 10);
        if (Number.isFinite(n)) onGo(storedStep(Math.max(1, Math.min(top, n))));
      }}
    >
      <label className="small muted">
        Go to step{' '}
        <input type="number" min={1} max={top} value={v} onChange={(e) => setV(e.target.value)} aria-label="Go to step" />
      </label>
      <button type="submit" className="btn btn-quiet">
        Go
      </button>
    </form>
  );
}
