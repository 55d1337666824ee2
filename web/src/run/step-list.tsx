// The steps of a run as a virtualised list: only the rows on screen (plus a few) are in the
// DOM, their heights measured as they render, and their texts fetched in windows as the list
// reaches them. Stays smooth for runs of 100,000 steps. Two views: full (a card per step) and
// compact (a line per step, loops folded, a line opening into its card).
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import type { LoopInfo, StepIndex, StepRow, ToolCallRow } from '../../../schemas/api.js';
import { ExpandableText } from '../components/expandable-text.js';
import { callOverlap, compactRows, rowOfPosition, type CompactRow, type ViewMode } from '../lib/compact-rows.js';
import { formatDuration, formatInt, formatTokens, formatUsd } from '../lib/format.js';
import { displayStep } from '../lib/step-label.js';
import { positionOfStep, stepThought } from '../lib/step-outline.js';
import { CompactLine, CompactLoop } from './compact-line.js';
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
  mode: ViewMode;
}

/** Height of the sticky top bar: scrolled-to steps land below it. */
const TOP_OFFSET = 16;
/** A compact line's height (run.css .compact-line) plus the gap under it. */
const LINE_HEIGHT = 31;

const NO_LOOPS: ReadonlyMap<number, number> = new Map();

export function StepList({ index, windows, loops, loopByStep, endStep, jump, stepLink, mode }: Props) {
  const [errorsOnly, setErrorsOnly] = useState(false);
  const [loopsOnly, setLoopsOnly] = useState(false);
  const [highlight, setHighlight] = useState<number | null>(null);
  const [missing, setMissing] = useState<number | null>(null);
  /** Compact view: the steps opened into their cards, and the loops unfolded. */
  const [opened, setOpened] = useState<ReadonlySet<number>>(() => new Set());
  const [openLoops, setOpenLoops] = useState<ReadonlySet<number>>(() => new Set());
  const listRef = useRef<HTMLOListElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);
  const compact = mode === 'compact';

  // Another run: nothing opened.
  useEffect(() => {
    setOpened(new Set());
    setOpenLoops(new Set());
  }, [index.run_id, index.project]);

  const errorCount = useMemo(() => index.error.reduce<number>((n, e) => n + e, 0), [index]);
  /** Positions (into index.step) shown, in order. */
  const positions = useMemo(() => {
    const all = index.step.map((_, i) => i);
    if (!errorsOnly && !loopsOnly) return all;
    return all.filter((i) => (!errorsOnly || index.error[i] === 1) && (!loopsOnly || loopByStep.has(index.step[i])));
  }, [index, errorsOnly, loopsOnly, loopByStep]);
  /** The rows of the list: a step each in the full view; lines and folded loops in the compact one. */
  const rows = useMemo<CompactRow[]>(
    () => (compact ? compactRows(index, positions, loopByStep, openLoops) : compactRows(index, positions, NO_LOOPS, openLoops)),
    [compact, index, positions, loopByStep, openLoops],
  );

  // The list's distance from the top of the page (content above it can change height).
  useLayoutEffect(() => {
    const el = listRef.current;
    if (!el) return;
    const top = Math.round(el.getBoundingClientRect().top + window.scrollY);
    if (Math.abs(top - scrollMargin) > 1) setScrollMargin(top);
  });

  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: (i) => {
      const r = rows[i];
      if (!compact) return 170;
      return r.kind === 'step' && opened.has(index.step[r.pos]) ? 340 : LINE_HEIGHT;
    },
    overscan: compact ? 12 : 4,
    scrollMargin,
    scrollPaddingStart: TOP_OFFSET,
    getItemKey: (i) => {
      const r = rows[i];
      return r.kind === 'step' ? `${mode}-s${index.step[r.pos]}` : `l${r.loop}`;
    },
  });
  const items = virtualizer.getVirtualItems();

  // Fetch the windows of the steps on screen (a folded loop needs none).
  const first = items.length ? items[0].index : -1;
  const last = items.length ? items[items.length - 1].index : -1;
  const { ensure, loaded } = windows;
  useEffect(() => {
    if (first < 0) return;
    const ws = new Set<number>();
    for (const it of items) {
      const r = rows[it.index];
      if (r && r.kind === 'step') ws.add(Math.floor(r.pos / STEP_WINDOW));
    }
    ensure([...ws]);
    // `items` follow first/last and `loaded` (the dependency re-asks after each window lands).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [first, last, ensure, loaded, rows]);

  // Jump to a step (a link, the chart, a loop): scroll it to the top and highlight it; in the
  // compact view its loop unfolds and its line opens.
  const pending = useRef<JumpRequest | null>(null);
  useEffect(() => {
    if (!jump) return;
    const pos = positionOfStep(index.step, jump.step);
    if (pos < 0) {
      setMissing(jump.step);
      return;
    }
    setMissing(null);
    pending.current = jump;
    if (compact) {
      const loop = loopByStep.get(jump.step);
      if (loop !== undefined && !openLoops.has(loop)) setOpenLoops((prev) => new Set(prev).add(loop));
      if (!opened.has(jump.step)) setOpened((prev) => new Set(prev).add(jump.step));
    }
    // A step the filters hide: show every step again, then go to it.
    if ((errorsOnly && index.error[pos] !== 1) || (loopsOnly && !loopByStep.has(jump.step))) {
      setErrorsOnly(false);
      setLoopsOnly(false);
      return;
    }
    setHighlight(jump.step);
  }, [jump]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    const j = pending.current;
    if (!j) return;
    const pos = positionOfStep(index.step, j.step);
    const i = rowOfPosition(rows, pos);
    if (i < 0) return;
    const r = rows[i];
    if (r.kind !== 'step') return; // its loop is unfolding
    setHighlight(j.step);
    virtualizer.scrollToIndex(i, { align: 'start' });
    // Once the step's text has arrived its card has its real height: scroll again, then settle.
    if (loaded.has(Math.floor(pos / STEP_WINDOW))) {
      requestAnimationFrame(() => virtualizer.scrollToIndex(i, { align: 'start' }));
      pending.current = null;
    }
  }, [jump, rows, loaded, virtualizer, index]);

  const toggleStep = useCallback((step: number) => {
    setOpened((prev) => {
      const next = new Set(prev);
      if (!next.delete(step)) next.add(step);
      return next;
    });
  }, []);
  const toggleLoop = useCallback((loop: number) => {
    setOpenLoops((prev) => {
      const next = new Set(prev);
      if (!next.delete(loop)) next.add(loop);
      return next;
    });
  }, []);

  return (
    <section className={`steps${compact ? ' steps-compact' : ''}`} aria-label="Steps">
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
        {loops.length > 0 && (
          <label className="toggle small">
            <input type="checkbox" checked={loopsOnly} onChange={(e) => setLoopsOnly(e.target.checked)} /> loops only
          </label>
        )}
      </div>
      {missing !== null && <div className="notice">This run has no step {displayStep(missing)}.</div>}
      {windows.error && (
        <div className="notice">
          Some steps could not be loaded: {windows.error.message}{' '}
          <button type="button" className="link-btn" onClick={windows.retry}>
            Try again
          </button>
        </div>
      )}
      {positions.length === 0 && (
        <div className="state state-empty">{index.step.length === 0 ? 'No steps recorded for this run.' : 'No step of this run is both in a loop and failed.'}</div>
      )}
      {compact && positions.length > 0 && (
        <div className="compact-head small muted" aria-hidden="true">
          <span />
          <span className="compact-num-col">step</span>
          <span>tool</span>
          <span>what</span>
          <span />
          <span>outcome</span>
          <span className="compact-num-col">tokens</span>
          <span className="compact-num-col">cost</span>
          <span className="compact-num-col">time</span>
        </div>
      )}
      <ol ref={listRef} className="step-list step-list-virtual" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((it) => {
          const r = rows[it.index];
          const slot = compact ? 'step-slot compact-row' : 'step-slot';
          const style = { transform: `translateY(${it.start - virtualizer.options.scrollMargin}px)` };
          if (r.kind === 'loop') {
            return (
              <li key={it.key} data-index={it.index} ref={virtualizer.measureElement} className={slot} style={style}>
                <CompactLoop index={index} line={r} info={loops[r.loop]} onToggle={toggleLoop} />
              </li>
            );
          }
          const pos = r.pos;
          const step = index.step[pos];
          const win = loaded.get(Math.floor(pos / STEP_WINDOW));
          const row = win?.steps.get(step);
          const calls = win?.calls.get(step) ?? NO_CALLS;
          const loopIdx = loopByStep.get(step);
          const card = row ? (
            <StepCard
              step={row}
              calls={calls}
              error={index.error[pos] === 1}
              highlighted={highlight === step}
              loop={loopIdx === undefined ? undefined : { n: loopIdx + 1, info: loops[loopIdx] }}
              ending={step === endStep}
              link={stepLink}
            />
          ) : (
            <StepPlaceholder step={step} index={index} pos={pos} />
          );
          return (
            <li key={it.key} data-index={it.index} ref={virtualizer.measureElement} className={slot} style={style}>
              {compact ? (
                <CompactLine
                  index={index}
                  pos={pos}
                  row={row}
                  calls={calls}
                  open={opened.has(step)}
                  highlighted={highlight === step}
                  ending={step === endStep}
                  loopNumber={r.loop === undefined ? undefined : r.loop + 1}
                  link={stepLink}
                  onToggle={toggleStep}
                >
                  {opened.has(step) && card}
                </CompactLine>
              ) : (
                card
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

const NO_CALLS: ToolCallRow[] = [];

function StepPlaceholder({ step, index, pos }: { step: number; index: StepIndex; pos: number }) {
  return (
    <div id={`step-${step}`} className={`step-card step-loading${index.error[pos] ? ' step-error' : ''}`} data-step={step} aria-busy="true">
      <div className="step-head">
        <span className="step-index">#{displayStep(step)}</span>
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
          #{displayStep(s.step)}
        </Link>
        {error && <span className="badge badge-failure">error</span>}
        {loop && (
          <Link className="badge badge-loop" to={link(loop.info.first_step)} title={`Steps ${displayStep(loop.info.first_step)}–${displayStep(loop.info.last_step)}`}>
            loop {loop.n} · {loop.info.kind}
            {loop.info.period > 1 ? ` of ${loop.info.period}` : ''} ×{loop.info.repetitions}
          </Link>
        )}
        {ending && (
          <a className="badge badge-ending" href="#run-ending" title="How the run ended">
            ended the run
          </a>
        )}
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
              <ToolCallView key={c.call_id} call={c} overlap={callOverlap(s, c)} />
            ))}
          </div>
        </div>
      )}
    </div>
  );
});
