// The compact view's lines: one per step (number, tool and its key argument, outcome, tokens,
// cost, time), and one per folded loop ("× 12" with the loop's summed figures). A line opens on
// a click or Enter; what is not loaded yet shows as a placeholder.
import type { KeyboardEvent, MouseEvent, ReactNode } from 'react';
import { memo } from 'react';
import { Link } from 'react-router-dom';
import type { LoopInfo, StepIndex, StepRow, ToolCallRow } from '../../../schemas/api.js';
import { lineSummary, type LoopLine } from '../lib/compact-rows.js';
import { formatDuration, formatInt, formatTokens, formatUsd } from '../lib/format.js';
import { displayStep } from '../lib/step-label.js';

/** Toggles on a click or Enter/Space, but not when a link inside the line was clicked. Its text names it. */
function toggleProps(onToggle: () => void, open: boolean) {
  return {
    role: 'button',
    tabIndex: 0,
    'aria-expanded': open,
    onClick: (e: MouseEvent) => {
      if ((e.target as HTMLElement).closest('a')) return;
      onToggle();
    },
    onKeyDown: (e: KeyboardEvent) => {
      if (e.target !== e.currentTarget) return;
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        onToggle();
      }
    },
  } as const;
}

interface LineProps {
  index: StepIndex;
  pos: number;
  /** The step with its calls, once its window has arrived. */
  row: StepRow | undefined;
  calls: readonly ToolCallRow[];
  open: boolean;
  highlighted: boolean;
  ending: boolean;
  /** Shown inside an opened loop: its number (1-based). */
  loopNumber: number | undefined;
  link: (step: number) => string;
  onToggle: (step: number) => void;
  /** The step's full card, under the line when open. */
  children?: ReactNode;
}

export const CompactLine = memo(function CompactLine({ index, pos, row, calls, open, highlighted, ending, loopNumber, link, onToggle, children }: LineProps) {
  const step = index.step[pos];
  const sum = row ? lineSummary(row, calls) : undefined;
  const tool = sum?.tool || index.tools?.[index.tool?.[pos] ?? 0] || '';
  const failed = index.error[pos] === 1;
  const error = sum ? sum.error : failed ? 'error' : '';
  const latency = index.latency_ms[pos];
  const cls = ['compact-line', failed ? 'compact-error' : '', loopNumber !== undefined ? 'compact-in-loop' : '', ending ? 'compact-ending' : '', highlighted ? 'compact-highlight' : '', open ? 'compact-open' : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div className="compact-slot" id={open ? undefined : `step-${step}`} data-step={step}>
      <div className={cls} {...toggleProps(() => onToggle(step), open)} data-testid="compact-line">
        <span className="compact-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <Link className="compact-num mono" to={link(step)} title="Link to this step">
          {displayStep(step)}
        </Link>
        <span className="compact-tool mono" title={tool || undefined}>
          {tool || (row ? <span className="muted">no tool</span> : '')}
        </span>
        <span className="compact-what mono" title={sum?.what || undefined}>
          {sum ? sum.what || <span className="muted">—</span> : <span className="compact-placeholder" aria-label="loading" />}
        </span>
        <span className="compact-flags">
          {loopNumber !== undefined && <span className="badge badge-loop">loop {loopNumber}</span>}
          {ending && <span className="badge badge-ending">ended the run</span>}
        </span>
        <span className={`compact-outcome${error ? ' error-text' : ' muted'}`} title={error ? `failed: ${error}` : 'ok'}>
          {error || 'ok'}
        </span>
        <span className="compact-num-col" title="input + output tokens">
          {formatTokens(index.input_tokens[pos] + index.output_tokens[pos])}
        </span>
        <span className="compact-num-col">{formatUsd(index.cost_usd[pos])}</span>
        <span className="compact-num-col muted" title="latency">
          {latency === null || latency === undefined ? '' : formatDuration(latency)}
        </span>
      </div>
      {open && children}
    </div>
  );
});

interface LoopProps {
  index: StepIndex;
  line: LoopLine;
  info: LoopInfo;
  onToggle: (loop: number) => void;
}

export const CompactLoop = memo(function CompactLoop({ index, line, info, onToggle }: LoopProps) {
  const first = displayStep(index.step[line.from]);
  const last = displayStep(index.step[line.to]);
  return (
    <div className="compact-slot" id={line.open ? undefined : `loop-${line.loop + 1}`}>
      <div
        className={`compact-line compact-loop${line.open ? ' compact-open' : ''}`}
        {...toggleProps(() => onToggle(line.loop), line.open)}
        data-testid="compact-loop"
      >
        <span className="compact-caret" aria-hidden="true">
          {line.open ? '▾' : '▸'}
        </span>
        <span className="compact-num mono">{first}</span>
        <span className="compact-times" data-testid="loop-times">
          × {formatInt(info.repetitions)}
        </span>
        <span className="compact-what">
          <span className="badge badge-loop">
            loop {line.loop + 1} · {info.kind}
            {info.period > 1 ? ` of ${info.period}` : ''}
          </span>{' '}
          <span className="muted">
            steps {first}–{last} ({formatInt(line.steps)} step{line.steps === 1 ? '' : 's'}){line.open ? '' : ', folded'}
          </span>
        </span>
        <span className="compact-flags" />
        <span className={`compact-outcome${line.errors ? ' error-text' : ' muted'}`}>{line.errors ? `${formatInt(line.errors)} failed` : 'ok'}</span>
        <span className="compact-num-col" title="tokens of these steps">
          {formatTokens(line.tokens)}
        </span>
        <span className="compact-num-col" title="cost of these steps">
          {formatUsd(line.cost_usd)}
        </span>
        <span className="compact-num-col muted" title="summed latency of these steps">
          {line.latency_ms === null ? '' : formatDuration(line.latency_ms)}
        </span>
      </div>
    </div>
  );
});
