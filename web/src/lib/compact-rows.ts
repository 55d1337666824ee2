// Pure shaping for the compact trajectory view: one row per step, a loop the analyzer found folded
// into one row (until opened), what a compact line says about a step, and when a tool call only
// repeats its step's action or observation (shown once, not twice).
import { keyArgument } from '../../../analytics/key-argument.js';
import type { LoopInfo, StepIndex, StepRow, ToolCallRow } from '../../../schemas/api.js';

/** Runs with more steps than this open in the compact view unless the URL asks otherwise. */
export const COMPACT_FROM_STEPS = 30;

export type ViewMode = 'compact' | 'full';

/** The view the URL asks for (`view=compact|full`), else compact for long runs. */
export function viewMode(search: string, steps: number): ViewMode {
  const v = new URLSearchParams(search).get('view');
  if (v === 'compact' || v === 'full') return v;
  return steps > COMPACT_FROM_STEPS ? 'compact' : 'full';
}

/** One step's line (`pos`: its position in the step index). */
export interface StepLine {
  kind: 'step';
  pos: number;
  /** The loop (index into the analysis' loops) the step belongs to, when it is shown open. */
  loop: number | undefined;
}

/** A loop folded into one row: the steps at positions `from`…`to` that are shown. */
export interface LoopLine {
  kind: 'loop';
  loop: number;
  /** Open: this row heads the loop's steps, listed after it. */
  open: boolean;
  from: number;
  to: number;
  /** Steps folded (shown positions from…to). */
  steps: number;
  /** Those of them that failed (the step or one of its tool calls). */
  errors: number;
  tokens: number;
  cost_usd: number;
  /** Summed latency of the folded steps (null when none has one). */
  latency_ms: number | null;
}

export type CompactRow = StepLine | LoopLine;

/**
 * The rows of the compact view over `positions` (positions into the index that are shown, in
 * order). Consecutive shown steps of one loop fold into one LoopLine, unless the loop is in
 * `openLoops`: then its LoopLine heads one StepLine per step. `loopByStep`: loopOfStep(loops).
 */
export function compactRows(ix: StepIndex, positions: readonly number[], loopByStep: ReadonlyMap<number, number>, openLoops: ReadonlySet<number>): CompactRow[] {
  const out: CompactRow[] = [];
  let i = 0;
  while (i < positions.length) {
    const pos = positions[i];
    const loop = loopByStep.get(ix.step[pos]);
    if (loop === undefined) {
      out.push({ kind: 'step', pos, loop: undefined });
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < positions.length && loopByStep.get(ix.step[positions[j + 1]]) === loop) j++;
    const open = openLoops.has(loop);
    out.push(loopLine(ix, positions, i, j, loop, open));
    if (open) for (let k = i; k <= j; k++) out.push({ kind: 'step', pos: positions[k], loop });
    i = j + 1;
  }
  return out;
}

function loopLine(ix: StepIndex, positions: readonly number[], i: number, j: number, loop: number, open: boolean): LoopLine {
  let tokens = 0;
  let cost = 0;
  let latency: number | null = null;
  let errors = 0;
  for (let k = i; k <= j; k++) {
    const p = positions[k];
    errors += ix.error[p] === 1 ? 1 : 0;
    tokens += (ix.input_tokens[p] ?? 0) + (ix.output_tokens[p] ?? 0);
    cost += ix.cost_usd[p] ?? 0;
    const l = ix.latency_ms[p];
    if (l !== null && l !== undefined) latency = (latency ?? 0) + l;
  }
  return { kind: 'loop', loop, open, from: positions[i], to: positions[j], steps: j - i + 1, errors, tokens, cost_usd: cost, latency_ms: latency };
}

/** The row (index into `rows`) showing position `pos`; a folded loop's row for its steps; -1 if none. */
export function rowOfPosition(rows: readonly CompactRow[], pos: number): number {
  let folded = -1;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (r.kind === 'step' && r.pos === pos) return i;
    if (r.kind === 'loop' && !r.open && pos >= r.from && pos <= r.to) folded = i;
  }
  return folded;
}

/** What a compact line says about one step: its tool, the tool's key argument, and how it went. */
export interface LineSummary {
  tool: string;
  /** The key argument of its first tool call, else the first line of its action. */
  what: string;
  /** The error type (or 'error') when the step or one of its calls failed; '' when it went well. */
  error: string;
}

/** The summary of a loaded step with its tool calls. */
export function lineSummary(step: StepRow, calls: readonly ToolCallRow[]): LineSummary {
  const first = calls[0];
  const failed = calls.find((c) => c.status === 'error');
  const stepFailed = step.error_type !== '' || step.error_message !== '';
  const error = stepFailed ? step.error_type || 'error' : failed ? failed.error_type || 'error' : '';
  const what = first ? keyArgument(first.arguments) : '';
  return { tool: first?.tool ?? '', what: what || firstLine(step.action), error };
}

function firstLine(text: string): string {
  const t = text.trim();
  const line = t.split('\n', 1)[0];
  return line.length < t.length ? `${line} …` : line;
}

/** Text compared as people read it: runs of white space count as one space. */
function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * True when `shown` holds all of `part` (the same text, or more; white space aside), so leaving
 * `part` out loses nothing; never for empty texts. Not the other way round: an action `ls` does
 * not stand for arguments `{"command":"ls -la /tmp"}`.
 */
export function holdsText(shown: string, part: string): boolean {
  const x = squash(shown);
  const y = squash(part);
  if (!x || !y) return false;
  return x.includes(y);
}

/** What of a tool call its step already shows (so the call's view leaves it out and says so). */
export interface CallOverlap {
  /** The call's arguments are the step's action, or within it. */
  args: boolean;
  /** The call's output is the step's observation, or within it. */
  output: boolean;
  /** The call's error message is the step's (the call's error type is still shown). */
  error: boolean;
}

export const NO_OVERLAP: CallOverlap = { args: false, output: false, error: false };

/** The merge rule: which parts of `call` repeat what `step` shows. */
export function callOverlap(step: Pick<StepRow, 'action' | 'observation' | 'error_type' | 'error_message'>, call: ToolCallRow): CallOverlap {
  const args = call.arguments.trim();
  return {
    args: args !== '' && args !== '{}' && holdsText(step.action, args),
    output: holdsText(step.observation, call.output),
    error: squash(call.error_message) !== '' && squash(call.error_message) === squash(step.error_message),
  };
}
