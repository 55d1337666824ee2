// The steps of a run as a virtualised list: only the cards on screen (plus a few) are in the
// DOM, their heights measured as they render, and their texts fetched in windows as the list
// reaches them. Stays smooth for runs of thousands of steps.
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import type { LoopInfo, StepIndex, StepRow, ToolCallRow } from '../../../schemas/api.js';
import { ExpandableText } from '../components/expandable-text.js';
import { formatDuration, formatInt, formatTokens, formatUsd } from '../lib/format.js';
import { positionOfStep, stepThought } from '../lib/step-outline.js';
import { ToolCallView } from './tool-call-view.js';
import { STEP_WINDOW, type StepWindows } from './use-step-windows.js';

export interface JumpRequest {
  step: number;
  /** Changes on every request, so jumping twice to the same step scrolls twice. */
  nonce: number;
}

interface Props {
  index: StepIndex;
  windows: StepWindows;
  loops: LoopInfo[];
  loopByStep: Map<number, number>;
  /** The step that ended the run (its last), marked in the list. */
  endStep: number | undefined;
  jump: JumpRequest | null;
  /** A link to one step of this run (keeps the rest of the URL). */
  stepLink: (step: number) => string;
}

/** Height of the sticky top bar: scrolled-to steps land below it. */
const TOP_OFFSET = 16;

export function StepList({ index, windows, loops, loopByStep, endStep, jump, stepLink }: Props) {
  const [errorsOnly, setErrorsOnly] = useState(false);
  const [highlight, setHighlight] = useState<number | null>(null);
  const [missing, setMissing] = useState<number | null>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);

  const errorCount = useMemo(() => index.error.reduce<number>((n, e) => n + e, 0), [index]);
  /** Positions (into index.step) shown, in order. */
  const positions = useMemo(() => {
    const all = index.step.map((_, i) => i);
    return errorsOnly ? all.filter((i) => index.error[i] === 1) : all;
  }, [index, errorsOnly]);

  // The list's distance from the top of the page (content above it can change height).
  useLayoutEffect(() => {
    const el = listRef.current;
    if (!el) return;
    const top = Math.round(el.getBoundingClientRect().top + window.scrollY);
    if (Math.abs(top - scrollMargin) > 1) setScrollMargin(top);
  });

  const virtualizer = useWindowVirtualizer({
    count: positions.length,
    estimateSize: () => 170,
    overscan: 4,
    scrollMargin,
    scrollPaddingStart: TOP_OFFSET,
    getItemKey: (i) => index.step[positions[i]],
  });
  const items = virtualizer.getVirtualItems();

  // Fetch the windows of the steps on screen.
  const first = items.length ? positions[items[0].index] : -1;
  const last = items.length ? positions[items[items.length - 1].index] : -1;
  const { ensure, loaded } = windows;
  useEffect(() => {
    if (first < 0) return;
    const ws = new Set<number>();
    for (const it of items) ws.add(Math.floor(positions[it.index] / STEP_WINDOW));
    ensure([...ws]);
    // `items` follow first/last and `loaded` (the dependency re-asks after each window lands).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [first, last, ensure, loaded, positions]);

  // Jump to a step (a link, the chart, a loop): scroll it to the top and highlight it.
  const pending = useRef<JumpRequest | null>(null);
  useEffect(() => {
    if (!jump) return;
    const pos = positionOfStep(index.step, jump.step);
    if (pos < 0) {
      setMissing(jump.step);
      return;
    }
    setMissing(null);
    if (errorsOnly && index.error[pos] !== 1) {
      pending.current = jump;
      setErrorsOnly(false);
      return;
    }
    pending.current = jump;
    setHighlight(jump.step);
  }, [jump]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    const j = pending.current;
    if (!j) return;
    const pos = positionOfStep(index.step, j.step);
    const i = positions.indexOf(pos);
    if (i < 0) return;
    setHighlight(j.step);
    virtualizer.scrollToIndex(i, { align: 'start' });
    // Once the step's text has arrived its card has its real height: scroll again, then settle.
    if (loaded.has(Math.floor(pos / STEP_WINDOW))) {
      requestAnimationFrame(() => virtualizer.scrollToIndex(i, { align: 'start' }));
      pending.current = null;
    }
  }, [jump, positions, loaded, virtualizer, index]);

  return (
    <section className="steps" aria-label="Steps">
      <div className="steps-head">
        <h2>Steps</h2>
        <span className="muted small">
          {formatInt(index.step.length)} step{index.step.length === 1 ? '' : 's'}
          {errorCount > 0 && <>, {formatInt(errorCount)} with errors</>}
          {loops.length > 0 && <>, {loops.length} loop{loops.length === 1 ? '' : 's'}</>}
        </span>
        {errorCount > 0 && (
          <label className="toggle small">
            <input type="checkbox" checked={errorsOnly} onChange={(e) => setErrorsOnly(e.target.checked)} /> errors only
          </label>
        )}
      </div>
      {missing !== null && <div className="notice">This run has no step {missing}.</div>}
      {windows.error && (
        <div className="notice">
          Some steps could not be loaded: {windows.error.message}{' '}
          <button type="button" className="link-btn" onClick={windows.retry}>
            Try again
          </button>
        </div>
      )}
      {positions.length === 0 && <div className="state state-empty">No steps recorded for this run.</div>}
      <ol ref={listRef} className="step-list step-list-virtual" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((it) => {
          const pos = positions[it.index];
          const step = index.step[pos];
          const win = loaded.get(Math.floor(pos / STEP_WINDOW));
          const row = win?.steps.get(step);
          const loopIdx = loopByStep.get(step);
          return (
            <li
              key={it.key}
              data-index={it.index}
              ref={virtualizer.measureElement}
              className="step-slot"
              style={{ transform: `translateY(${it.start - virtualizer.options.scrollMargin}px)` }}
            >
              {row ? (
                <StepCard
                  step={row}
                  calls={win?.calls.get(step) ?? []}
                  error={index.error[pos] === 1}
                  highlighted={highlight === step}
                  loop={loopIdx === undefined ? undefined : { n: loopIdx + 1, info: loops[loopIdx] }}
                  ending={step === endStep}
                  link={stepLink}
                />
              ) : (
                <StepPlaceholder step={step} index={index} pos={pos} />
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

function StepPlaceholder({ step, index, pos }: { step: number; index: StepIndex; pos: number }) {
  return (
    <div id={`step-${step}`} className={`step-card step-loading${index.error[pos] ? ' step-error' : ''}`} data-step={step} aria-busy="true">
      <div className="step-head">
        <span className="step-index">#{step}</span>
        <span className="step-metrics small muted">
          {formatTokens(index.input_tokens[pos])} in · {formatTokens(index.output_tokens[pos])} out · {formatUsd(index.cost_usd[pos])}
        </span>
      </div>
      <div className="skeleton-line" />
      <div className="skeleton-line short" />
    </div>
  );
}

interface CardProps {
  step: StepRow;
  calls: ToolCallRow[];
  error: boolean;
  highlighted: boolean;
  loop: { n: number; info: LoopInfo } | undefined;
  ending: boolean;
  link: (step: number) => string;
}

const StepCard = memo(function StepCard({ step: s, calls, error, highlighted, loop, ending, link }: CardProps) {
  const cls = ['step-card', error ? 'step-error' : '', loop ? 'step-in-loop' : '', ending ? 'step-ending' : '', highlighted ? 'step-highlight' : '']
    .filter(Boolean)
    .join(' ');
  const thought = stepThought(s.metadata);
  return (
    <div id={`step-${s.step}`} className={cls} data-step={s.step}>
      <div className="step-head">
        <Link className="step-index" to={link(s.step)} title="Link to this step">
          #{s.step}
        </Link>
        {error && <span className="badge badge-failure">error</span>}
        {loop && (
          <Link className="badge badge-loop" to={link(loop.info.first_step)} title={`Steps ${loop.info.first_step}–${loop.info.last_step}`}>
            loop {loop.n} · {loop.info.kind}
            {loop.info.period > 1 ? ` of ${loop.info.period}` : ''} ×{loop.info.repetitions}
          </Link>
        )}
        {ending && <span className="badge badge-ending">ended the run</span>}
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
          <span title={`latency · at ${s.ts}`}>{formatDuration(s.latency_ms)}</span>
        </span>
      </div>
      {thought && (
        <div className="step-part">
          <div className="part-label">thought</div>
          <ExpandableText text={thought} maxLines={4} className="thought" />
        </div>
      )}
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
            tool call{calls.length === 1 ? '' : 's'}
            {calls.length > 1 ? ` (${calls.length})` : ''}
          </div>
          <div className="tool-calls">
            {calls.map((c) => (
              <ToolCallView key={c.call_id} call={c} />
            ))}
          </div>
        </div>
      )}
    </div>
  );
});
