// A run handle: records the run's steps, tool calls, scores and end. Every method returns at once
// (events go to the client's queue) and never throws into the agent; problems go to onError.
import { anthropicMessageStep, openAIChatStep, type ChatStep, type RequestedToolCall } from './chat-responses.js';
import { runEndEvent, scoreEvent, stepEvent, toolCallEvent, type EventContext } from './event-builders.js';
import type { EndRunInput, ScoreInput, StepInput, ToolCallInput, TrajscopeEvent } from './events.js';
import { TrajscopeError } from './errors.js';

/** Where a run's events go (the client). */
export interface RunSink {
  readonly project?: string;
  emit(event: TrajscopeEvent): boolean;
  report(error: TrajscopeError): void;
}

/** Options of a recorded chat call: anything a step takes, over what the response says. */
export type ChatStepOptions = StepInput;

/** Tool calls requested by recorded chat responses, remembered until their result is recorded. */
const MAX_REQUESTED_CALLS = 1000;

export class Run {
  private nextStep: number;
  private lastStep: number | undefined;
  private readonly requested = new Map<string, RequestedToolCall & { step: number }>();

  constructor(
    private readonly sink: RunSink,
    readonly runId: string,
    nextStep = 0,
  ) {
    this.nextStep = nextStep;
    this.lastStep = nextStep > 0 ? nextStep - 1 : undefined;
  }

  /** Records a step; returns its index (one after the last step unless `step` is given). */
  step(input: StepInput = {}): number {
    return this.guard(-1, () => {
      const step = input.step ?? this.nextStep;
      this.nextStep = Math.max(this.nextStep, step + 1);
      this.lastStep = step;
      this.sink.emit(stepEvent(this.ctx(), step, input));
      return step;
    });
  }

  /**
   * Records a tool call (with its result). With the `callId` of a tool call a recorded chat
   * response asked for, its tool, arguments and step are filled in.
   */
  toolCall(input: ToolCallInput): void {
    this.guard(undefined, () => {
      const asked = input.callId !== undefined ? this.requested.get(input.callId) : undefined;
      if (asked) this.requested.delete(asked.callId);
      const tool = input.tool ?? asked?.tool;
      if (!tool) {
        this.sink.report(new TrajscopeError('invalid', `toolCall of run ${this.runId} has no tool name (give \`tool\`, or the callId of a recorded chat response's tool call)`));
        return;
      }
      const callId = input.callId ?? `call-${randomId()}`;
      const step = input.step ?? asked?.step ?? this.lastStep;
      this.sink.emit(toolCallEvent(this.ctx(), { step, callId, tool }, { ...input, arguments: input.arguments ?? asked?.arguments }));
    });
  }

  /** Records the run's end (its status, reward, tests). */
  endRun(input: EndRunInput): void {
    this.guard(undefined, () => {
      this.sink.emit(runEndEvent(this.ctx(), input));
    });
  }

  /** Records a score (verifier, human or judge). */
  score(input: ScoreInput): void {
    this.guard(undefined, () => {
      this.sink.emit(scoreEvent(this.ctx(), input));
    });
  }

  /**
   * Records an OpenAI-style chat response (Chat Completions or Responses API) as a step: model,
   * tokens, and the tool calls it asked for as the action. Returns the step index.
   */
  recordOpenAIChat(response: unknown, options: ChatStepOptions = {}): number {
    return this.guard(-1, () => this.recordChat(openAIChatStep(response), options));
  }

  /** Records an Anthropic-style Messages response as a step (tool_use blocks as the action). */
  recordAnthropicMessage(response: unknown, options: ChatStepOptions = {}): number {
    return this.guard(-1, () => this.recordChat(anthropicMessageStep(response), options));
  }

  /**
   * Makes an OpenAI-style chat call and records it as a step with its latency; returns the
   * response unchanged. A call that throws is recorded as a failed step and its error rethrown.
   *   const res = await run.openAIChat(() => openai.chat.completions.create({ ... }));
   */
  openAIChat<T>(call: Promise<T> | (() => Promise<T>), options: ChatStepOptions = {}): Promise<T> {
    return this.timedCall(call, options, (res, o) => this.recordOpenAIChat(res, o));
  }

  /** As openAIChat, for an Anthropic-style `messages.create` call. */
  anthropicMessage<T>(call: Promise<T> | (() => Promise<T>), options: ChatStepOptions = {}): Promise<T> {
    return this.timedCall(call, options, (res, o) => this.recordAnthropicMessage(res, o));
  }

  private async timedCall<T>(
    call: Promise<T> | (() => Promise<T>),
    options: ChatStepOptions,
    record: (response: T, options: ChatStepOptions) => number,
  ): Promise<T> {
    const t0 = Date.now();
    let response: T;
    try {
      response = await (typeof call === 'function' ? call() : call);
    } catch (err) {
      const e = err as { name?: unknown; message?: unknown } | undefined;
      this.step({
        latencyMs: Date.now() - t0,
        ...options,
        error: { type: typeof e?.name === 'string' ? e.name : 'Error', message: typeof e?.message === 'string' ? e.message : String(err) },
      });
      throw err;
    }
    record(response, { latencyMs: Date.now() - t0, ...options });
    return response;
  }

  private recordChat(chat: ChatStep, options: ChatStepOptions): number {
    const metadata = chat.step.metadata || options.metadata ? { ...chat.step.metadata, ...options.metadata } : undefined;
    const step = this.step({ ...withoutUndefined(chat.step), ...withoutUndefined(options), metadata });
    for (const call of chat.toolCalls) {
      if (!call.callId) continue;
      if (this.requested.size >= MAX_REQUESTED_CALLS) this.requested.delete(this.requested.keys().next().value as string);
      this.requested.set(call.callId, { ...call, step });
    }
    return step;
  }

  private ctx(): EventContext {
    return { runId: this.runId, project: this.sink.project, now: Date.now() };
  }

  private guard<T>(fallback: T, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      try {
        this.sink.report(new TrajscopeError('invalid', `run ${this.runId}: ${(err as Error)?.message ?? String(err)}`, err));
      } catch {
        // never into the agent
      }
      return fallback;
    }
  }
}

function withoutUndefined<T extends object>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as Partial<T>;
}

export function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(16)}-${Math.random().toString(16).slice(2)}-${Math.random().toString(16).slice(2)}`;
}
