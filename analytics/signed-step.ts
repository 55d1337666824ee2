// A step reduced to what loop detection and rework need: its signatures and what it spent.
// Built from normalized step and tool_call events (schemas/normalize-event.ts). Pure.
import type { StepEvent, ToolCallEvent } from '../schemas/normalize-event.js';
import { actionSignature, actionText, observationSignature, collapseWhitespace } from './signatures.js';

export interface SignedStep {
  /** The step index of the run (the `step` field of the event). */
  step: number;
  /** Action signature (see signatures.ts). */
  action: string;
  /** Observation signature; equal signatures imply equal error flags. */
  observation: string;
  /** True when the step or one of its tool calls failed. */
  error: boolean;
  /** Input plus output tokens of the step. */
  tokens: number;
  cost_usd: number;
}

export type StepInput = Pick<
  StepEvent,
  'step' | 'action' | 'observation' | 'error_type' | 'error_message' | 'input_tokens' | 'output_tokens' | 'cost_usd'
>;
export type ToolCallInput = Pick<ToolCallEvent, 'step' | 'tool' | 'arguments' | 'status' | 'output'>;

export interface SignOptions {
  /** Cost of a step that carries no `cost_usd` (e.g. priced from the model table); else 0. */
  costOf?: (step: StepInput) => number | null;
}

/**
 * Signs the steps of one run, in step order (duplicate step indices keep the first). Tool calls
 * are matched to steps by their `step`; calls without a step are ignored here. A step with
 * nothing to sign (no action, no tool call, no observation, no error) gets a unique signature,
 * so steps that only carry token counts never look like a loop.
 */
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
