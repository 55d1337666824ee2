// The steps of a run. Renders lazily: a batch at a time as the reader scrolls (an observer on a
// sentinel below the last card), and cards off screen skip layout (content-visibility), so
// runs with thousands of steps stay responsive.
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { StepRow, ToolCallRow } from '../../../schemas/api.js';
import type { ApiError } from '../api/client.js';
import { ExpandableText } from '../components/expandable-text.js';
import { stepHasError } from '../lib/chart-data.js';
import { formatDuration, formatInt, formatTokens, formatUsd } from '../lib/format.js';
import { ToolCallView } from './tool-call-view.js';

const BATCH = 60;

export interface JumpRequest {
  step: number;
  /** Changes on every request, so jumping twice to the same step scrolls twice. */
  nonce: number;
}

interface Props {
  steps: StepRow[];
  /** Steps of the run on the server (more than `steps` when not all are loaded). */
  totalSteps: number;
  callsByStep: Map<number | null, ToolCallRow[]>;
  jump: JumpRequest | null;
  more: { hasMore: boolean; loading: boolean; error: ApiError | undefined; load: () => void };
}

export function StepList({ steps, totalSteps, callsByStep, jump, more }: Props) {
  const [missing, setMissing] = useState<number | null>(null);
  const [errorsOnly, setErrorsOnly] = useState(false);
  const [count, setCount] = useState(BATCH);
  const [highlight, setHighlight] = useState<number | null>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  const pendingScroll = useRef<number | null>(null);
  const handledJump = useRef(-1);

  const sorted = useMemo(() => [...steps].sort((a, b) => a.step - b.step), [steps]);
  const isError = (s: StepRow) => stepHasError(s) || (callsByStep.get(s.step) ?? []).some((c) => c.status === 'error');
  const errorCount = useMemo(() => sorted.filter(isError).length, [sorted, callsByStep]); // eslint-disable-line react-hooks/exhaustive-deps
  const shown = useMemo(() => (errorsOnly ? sorted.filter(isError) : sorted), [sorted, errorsOnly, callsByStep]); // eslint-disable-line react-hooks/exhaustive-deps
  const known = useMemo(() => new Set(sorted.map((s) => s.step)), [sorted]);
  const orphanCalls = useMemo(() => {
    const out: ToolCallRow[] = [];
    for (const [step, calls] of callsByStep) if (step === null || !known.has(step)) out.push(...calls);
    return out;
  }, [callsByStep, known]);

  // Render the next batch when the sentinel comes near the viewport.
  useEffect(() => {
    const el = sentinel.current;
    if (!el || count >= shown.length) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) setCount((c) => Math.min(shown.length, c + BATCH));
      },
      { rootMargin: '1200px 0px' },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [count, shown.length]);

  // Jump to a step (from the chart or the "go to step" box).
  useEffect(() => {
    if (!jump) return;
    // Steps grew (more were loaded): only retry a jump that is still waiting for its step.
    if (handledJump.current === jump.nonce && missing !== jump.step) return;
    handledJump.current = jump.nonce;
    setMissing(null);
    let idx = shown.findIndex((s) => s.step === jump.step);
    if (idx < 0 && errorsOnly) {
      setErrorsOnly(false);
      idx = sorted.findIndex((s) => s.step === jump.step);
    }
    if (idx < 0) {
      setMissing(jump.step);
      return;
    }
    setCount((c) => Math.max(c, idx + BATCH / 2));
    pendingScroll.current = jump.step;
    setHighlight(jump.step);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [jump, sorted]);

  useLayoutEffect(() => {
    const step = pendingScroll.current;
    if (step === null) return;
    const el = document.getElementById(`step-${step}`);
    if (el) {
      pendingScroll.current = null;
      settleScroll(el);
    }
  });

  return (
    <section className="steps" aria-label="Steps">
      <div className="steps-head">
        <h2>Steps</h2>
        <span className="muted small">
          {sorted.length < totalSteps ? `${formatInt(sorted.length)} of ${formatInt(totalSteps)} steps loaded` : `${formatInt(sorted.length)} step${sorted.length === 1 ? '' : 's'}`}
          {errorCount > 0 && <>, {formatInt(errorCount)} with errors</>}
        </span>
        {errorCount > 0 && (
          <label className="toggle small">
            <input type="checkbox" checked={errorsOnly} onChange={(e) => setErrorsOnly(e.target.checked)} /> errors only
          </label>
        )}
      </div>
      {missing !== null && (
        <div className="notice">
          Step {missing} is not loaded{more.hasMore ? '' : ' (the run has no such step)'}.{' '}
          {more.hasMore && (
            <button type="button" className="link-btn" onClick={more.load} disabled={more.loading}>
              {more.loading ? 'Loading…' : 'Load more steps'}
            </button>
          )}
        </div>
      )}
      {shown.length === 0 && <div className="state state-empty">No steps recorded for this run.</div>}
      <ol className="step-list">
        {shown.slice(0, count).map((s) => (
          <StepCard key={s.step} step={s} calls={callsByStep.get(s.step) ?? []} error={isError(s)} highlighted={highlight === s.step} />
        ))}
      </ol>
      {count < shown.length && (
        <div ref={sentinel} className="sentinel">
          <button type="button" className="btn" onClick={() => setCount((c) => Math.min(shown.length, c + BATCH * 5))}>
            Show more steps ({formatInt(shown.length - count)} not rendered yet)
          </button>
        </div>
      )}
      {count >= shown.length && more.hasMore && (
        <div className="sentinel">
          <button type="button" className="btn" onClick={more.load} disabled={more.loading}>
            {more.loading ? 'Loading steps…' : `Load more steps (${formatInt(totalSteps - sorted.length)} not loaded)`}
          </button>
          {more.error && <span className="error-text small">{more.error.message}</span>}
        </div>
      )}
      {orphanCalls.length > 0 && count >= shown.length && !more.hasMore && (
        <div className="card orphan-calls">
          <h3>Tool calls without a recorded step</h3>
          {orphanCalls.map((c) => (
            <ToolCallView key={c.call_id} call={c} />
          ))}
        </div>
      )}
    </section>
  );
}

/**
 * Scrolls a step card to the top. Cards off screen have estimated heights (content-visibility),
 * which become real as cards near the target render, so the scroll is repeated until it settles.
 */
function settleScroll(el: HTMLElement, attempts = 6) {
  el.scrollIntoView({ block: 'start', behavior: 'auto' });
  const margin = parseFloat(getComputedStyle(el).scrollMarginTop) || 0;
  const check = (left: number) =>
    requestAnimationFrame(() => {
      if (!el.isConnected) return;
      const top = el.getBoundingClientRect().top;
      if (Math.abs(top - margin) > 4 && left > 0) {
        el.scrollIntoView({ block: 'start', behavior: 'auto' });
        check(left - 1);
      }
    });
  check(attempts);
}

const StepCard = memo(function StepCard({ step: s, calls, error, highlighted }: { step: StepRow; calls: ToolCallRow[]; error: boolean; highlighted: boolean }) {
  const cls = ['step-card', error ? 'step-error' : '', highlighted ? 'step-highlight' : ''].filter(Boolean).join(' ');
  return (
    <li id={`step-${s.step}`} className={cls} data-step={s.step}>
      <div className="step-head">
        <span className="step-index">#{s.step}</span>
        {error && <span className="badge badge-failure">error</span>}
        <span className="step-metrics small">
          {s.model && <span className="muted">{s.model}</span>}
          <span title="input / output tokens">
            {formatTokens(s.input_tokens)} in · {formatTokens(s.output_tokens)} out
          </span>
          {s.cache_read_tokens > 0 && <span className="muted">cache {formatTokens(s.cache_read_tokens)}</span>}
          <span title={s.cost_estimated ? 'estimated from the model price table' : undefined}>
            {formatUsd(s.cost_usd)}
            {s.cost_estimated && <span className="est">*</span>}
          </span>
          <span title="latency">{formatDuration(s.latency_ms)}</span>
        </span>
      </div>
      {s.action && (
        <div className="step-part">
          <div className="part-label">action</div>
          <ExpandableText text={s.action} maxLines={6} className="code" />
        </div>
      )}
      {s.observation && (
        <div className="step-part">
          <div className="part-label">observation</div>
          <ExpandableText text={s.observation} truncated={s.truncated} />
        </div>
      )}
      {(s.error_type || s.error_message) && (
        <div className="step-part">
          <div className="part-label">error</div>
          <div className="error-line error-text">
            <strong>{s.error_type || 'error'}</strong>
            {s.error_message && <>: {s.error_message}</>}
          </div>
        </div>
      )}
      {calls.length > 0 && (
        <div className="step-part">
          <div className="part-label">
            tool call{calls.length === 1 ? '' : 's'}{calls.length > 1 ? ` (${calls.length})` : ''}
          </div>
          <div className="tool-calls">
            {calls.map((c) => (
              <ToolCallView key={c.call_id} call={c} />
            ))}
          </div>
        </div>
      )}
    </li>
  );
});
