// A step reduced to what loop detection and rework need: its signatures and what it spent.
// Built from normalized step and tool_call events (schemas/normalize-event.ts). Pure.
import type { StepEvent, ToolCallEvent, TrajEvent } from '../schemas/normalize-event.js';
import {
  callText,
  collapseWhitespace,
  digest,
  maskedDigest,
  observationSignature,
  withErrorFlag,
} from './signatures.js';

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

/**
 * What a step event alone gives its signatures, worked out once at ingest and stored with its
 * row, so the run analyzer can sign a run without reading its texts back.
 */
export interface StepParts {
  /** digest of the collapsed action text; '' when that text is empty. */
  action: string;
  /** maskedDigest of the collapsed observation; '' when it is empty. */
  observation: string;
}

/** What a tool-call event alone gives the signatures of its step. */
export interface CallParts {
  /** digest of callText: the action of a step with this call alone. */
  call: string;
  /** maskedDigest of the collapsed output; '' when the output is ''. */
  output: string;
}

export type StepInput = Pick<
  StepEvent,
  'step' | 'action' | 'observation' | 'error_type' | 'error_message' | 'input_tokens' | 'output_tokens' | 'cost_usd'
> & {
  /** stepParts of this step, when known (then action and observation are not read). */
  parts?: StepParts;
};
export type ToolCallInput = Pick<ToolCallEvent, 'step' | 'tool' | 'arguments' | 'status' | 'output'> & {
  /** callParts of this call, when known (then its texts are read only for a step of several calls). */
  parts?: CallParts;
};

export function stepParts(step: Pick<StepEvent, 'action' | 'observation'>): StepParts {
  const action = collapseWhitespace(step.action);
  return { action: action === '' ? '' : digest(action), observation: observationPart(step.observation) };
}

/** The observation part alone (a step with tool calls takes its action from them). */
function observationPart(text: string): string {
  const observation = collapseWhitespace(text);
  return observation === '' ? '' : maskedDigest(observation);
}

export function callParts(call: Pick<ToolCallEvent, 'tool' | 'arguments' | 'output'>): CallParts {
  return {
    call: digest(callText(call)),
    output: call.output === '' ? '' : maskedDigest(collapseWhitespace(call.output)),
  };
}

/** The parts of each event of a list, by position: steps' and tool calls' (undefined for the others). */
export type EventParts = ReadonlyArray<StepParts | CallParts | undefined>;

export function eventParts(events: readonly TrajEvent[]): EventParts {
  const out: Array<StepParts | CallParts | undefined> = new Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    out[i] = e.type === 'step' ? stepParts(e) : e.type === 'tool_call' ? callParts(e) : undefined;
  }
  return out;
}

/** The parts of the step at position i of eventParts, worked out when not given. */
export function stepPartsAt(parts: EventParts | undefined, i: number, step: StepEvent): StepParts {
  return (parts?.[i] as StepParts | undefined) ?? stepParts(step);
}

/** The parts of the tool call at position i of eventParts, worked out when not given. */
export function callPartsAt(parts: EventParts | undefined, i: number, call: ToolCallEvent): CallParts {
  return (parts?.[i] as CallParts | undefined) ?? callParts(call);
}

/** Version of the stored parts (the sig_version column; 0: a row stored without them). */
export const PARTS_VERSION = 1;

const EMPTY_ACTION = digest('');

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
  const ordered = inStepOrder(steps);
  const out: SignedStep[] = new Array(ordered.length);
  for (let i = 0; i < ordered.length; i++) out[i] = signStep(ordered[i], callsByStep.get(ordered[i].step) ?? NO_CALLS, opts);
  return out;
}

const NO_CALLS: readonly ToolCallInput[] = [];

/** The steps sorted by index, the first of equal indices kept; steps already in order as they are. */
function inStepOrder(steps: readonly StepInput[]): readonly StepInput[] {
  let increasing = true;
  for (let i = 1; i < steps.length && increasing; i++) increasing = steps[i].step > steps[i - 1].step;
  if (increasing) return steps;
  const seen = new Set<number>();
  return [...steps].sort((a, b) => a.step - b.step).filter((s) => !seen.has(s.step) && seen.add(s.step));
}

/**
 * Signs one step: its action is actionSignature of its tool calls, else of its action text; its
 * observation is observationSignature of the step's observation, else its tool calls' outputs
 * (in action order), else its error. Made of the step's and its calls' parts (given, else worked
 * out here); a step of several calls also needs its calls' texts, to put them in action order.
 */
export function signStep(step: StepInput, calls: readonly ToolCallInput[], opts: SignOptions = {}): SignedStep {
  let error = step.error_type !== '' || step.error_message !== '';
  for (let i = 0; i < calls.length && !error; i++) error = calls[i].status === 'error';
  // From texts, a step with calls needs no digest of its action text.
  const parts = step.parts ?? (calls.length === 0 ? stepParts(step) : { action: '', observation: observationPart(step.observation) });
  const errorText = () => observationSignature(step.error_message || step.error_type, error);
  let action: string;
  let observed: string;
  if (calls.length === 0) {
    if (parts.action === '' && parts.observation === '' && !error) {
      // Nothing to sign (the observation falls back to the error, and there is none).
      const unsigned = `unsigned:${step.step}`;
      return signed(step, unsigned, unsigned, error, opts);
    }
    action = parts.action || EMPTY_ACTION;
    observed = parts.observation !== '' ? withErrorFlag(parts.observation, error) : errorText();
  } else if (calls.length === 1) {
    const call = calls[0];
    action = call.parts?.call ?? digest(callText(call));
    if (parts.observation !== '') observed = withErrorFlag(parts.observation, error);
    else if (call.parts) observed = call.parts.output !== '' ? withErrorFlag(call.parts.output, error) : errorText();
    else observed = call.output !== '' ? observationSignature(call.output, error) : errorText();
  } else {
    // Calls in action order: sorted by their text, stably (so outputs of equal calls keep their order).
    const texts = calls.map(callText);
    const order = texts.map((_, i) => i).sort((a, b) => (texts[a] < texts[b] ? -1 : texts[a] > texts[b] ? 1 : 0));
    action = digest(order.map((i) => texts[i]).join('\n'));
    if (parts.observation !== '') observed = withErrorFlag(parts.observation, error);
    else {
      const outputs = order.map((i) => calls[i].output).filter((o) => o !== '');
      observed = outputs.length > 0 ? observationSignature(outputs.join('\n'), error) : errorText();
    }
  }
  return signed(step, action, observed, error, opts);
}

function signed(step: StepInput, action: string, observation: string, error: boolean, opts: SignOptions): SignedStep {
  return {
    step: step.step,
    action,
    observation,
    error,
    tokens: step.input_tokens + step.output_tokens,
    cost_usd: step.cost_usd ?? opts.costOf?.(step) ?? 0,
  };
}
