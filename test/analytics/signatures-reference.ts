// The signing code as it was before the fast paths (analytics/signatures.ts and
// analytics/signed-step.ts at commit efb165b, with canonicalJson of schemas/normalize-event.ts),
// kept verbatim as the reference the equivalence test and bench/signing.ts compare against.
// Do not "improve" this file: its point is to stay the old behaviour, byte for byte.
import { hash } from 'node:crypto';
import type { SignOptions, SignedStep, StepInput, ToolCallInput } from '../../analytics/signed-step.js';

/** canonicalJson and sortKeys of schemas/normalize-event.ts. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? '';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

// ---- analytics/signatures.ts ----
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Canonical text of tool-call arguments: JSON (given as a value or as JSON text) with keys sorted
 * at every level and whitespace collapsed inside string values. Text that is not JSON is only
 * whitespace-collapsed. Absent arguments give ''.
 */
export function canonicalArguments(args: unknown): string {
  let value = args;
  if (typeof args === 'string') {
    if (args.trim() === '') return '';
    try {
      value = JSON.parse(args);
    } catch {
      return collapseWhitespace(args);
    }
  }
  return canonicalJson(collapseStrings(value));
}

function collapseStrings(value: unknown): unknown {
  if (typeof value === 'string') return collapseWhitespace(value);
  if (Array.isArray(value)) return value.map(collapseStrings);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = collapseStrings(v);
    return out;
  }
  return value;
}

export interface ToolCallLike {
  tool: string;
  /** A JSON value, or JSON text (as stored by normalize-event), or free text. */
  arguments: unknown;
}

export interface ActionInput {
  /** The step's tool calls; when there are any, they define the action. */
  tool_calls?: readonly ToolCallLike[];
  /** The step's action text, used when there are no tool calls. */
  action?: string;
}

/**
 * Readable normal form of a step's action. Several tool calls of one step are sorted, so
 * parallel calls reported in a different order still give the same action.
 */
export function actionText(input: ActionInput): string {
  const calls = input.tool_calls ?? [];
  if (calls.length > 0) {
    return calls
      .map((c) => `${c.tool.trim()} ${canonicalArguments(c.arguments)}`.trim())
      .sort()
      .join('\n');
  }
  return collapseWhitespace(input.action ?? '');
}

/** Compact signature (hash) of `actionText(input)`. */
export function actionSignature(input: ActionInput): string {
  return digest(actionText(input));
}

// Applied in this order; each replaces a volatile token by a placeholder.
const MASKS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  // ISO dates with an optional time and zone: 2026-11-30, 2026-11-30T09:00:03.120Z
  [
    /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w-])/g,
    '<ts>',
  ],
  // Times of day: 09:00:03, 09:00:03.120
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<ts>'],
  // Durations, which change from one attempt to the next: 0.52s, 1500 ms, 3.2 sec
  [/\b\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|s|sec|secs|seconds|min|mins|minutes)\b/g, '<dur>'],
  // Memory addresses and hex literals: 0x7f3a2b1c
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  // Hex ids of 7+ characters with both a digit and a letter: git shas, container ids
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, '<hex>'],
  // Long numbers (5+ digits): epoch times, pids, byte counts, request ids
  [/\d{5,}(?:\.\d+)?/g, '<num>'],
];

/** Observation text with whitespace collapsed and volatile tokens masked. */
export function maskObservation(text: string): string {
  let out = collapseWhitespace(text);
  for (const [pattern, placeholder] of MASKS) out = out.replace(pattern, placeholder);
  return out;
}

/** Compact signature (hash) of the masked observation and its error flag. */
export function observationSignature(text: string, isError: boolean): string {
  return digest(`${isError ? 'error' : 'ok'}\n${maskObservation(text)}`);
}

/** The step signature: action and observation together. */
export function stepSignature(actionSig: string, observationSig: string): string {
  return `${actionSig}/${observationSig}`;
}

/**
 * 64-bit hex digest: short enough to keep many in memory, collisions negligible per run. The
 * one-shot crypto.hash is about 3x faster than createHash for short texts (it runs per step).
 */
export function digest(text: string): string {
  return hash('sha256', text, 'hex').slice(0, 16);
}

// ---- analytics/signed-step.ts ----
export function signSteps(
  steps: readonly StepInput[],
  toolCalls: readonly ToolCallInput[] = [],
  opts: SignOptions = {},
): SignedStep[] {
  const callsByStep = new Map<number, ToolCallInput[]>();
  for (const call of toolCalls) {
    if (call.step === null) continue;
    const list = callsByStep.get(call.step);
    if (list) list.push(call);
    else callsByStep.set(call.step, [call]);
  }
  const seen = new Set<number>();
  const ordered = [...steps].sort((a, b) => a.step - b.step).filter((s) => !seen.has(s.step) && seen.add(s.step));
  return ordered.map((s) => signStep(s, callsByStep.get(s.step) ?? [], opts));
}

export function signStep(step: StepInput, calls: readonly ToolCallInput[], opts: SignOptions = {}): SignedStep {
  const error = step.error_type !== '' || step.error_message !== '' || calls.some((c) => c.status === 'error');
  const observation = observationText(step, calls);
  const nothing = calls.length === 0 && collapseWhitespace(step.action) === '' && observation === '' && !error;
  const action = nothing ? `unsigned:${step.step}` : actionSignature({ tool_calls: calls, action: step.action });
  return {
    step: step.step,
    action,
    observation: nothing ? `unsigned:${step.step}` : observationSignature(observation, error),
    error,
    tokens: step.input_tokens + step.output_tokens,
    cost_usd: step.cost_usd ?? opts.costOf?.(step) ?? 0,
  };
}

/** The step's observation, else its tool calls' outputs (in action order), else its error. */
function observationText(step: StepInput, calls: readonly ToolCallInput[]): string {
  if (collapseWhitespace(step.observation) !== '') return step.observation;
  const outputs = calls
    .map((c) => ({ key: actionText({ tool_calls: [c] }), output: c.output }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((c) => c.output)
    .filter((o) => o !== '');
  if (outputs.length > 0) return outputs.join('\n');
  return step.error_message || step.error_type;
}
