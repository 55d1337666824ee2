// Reads an OpenAI-style or Anthropic-style chat response into a step: model, token usage, the
// action (the tool calls as `name {json args}`, else the reply text) and the tool calls the model
// asked for. Works on the plain JSON of either API and on their SDKs' response objects. Pure.
import type { StepInput } from './events.js';

export interface RequestedToolCall {
  callId: string;
  tool: string;
  arguments: unknown;
}

export interface ChatStep {
  step: StepInput;
  toolCalls: RequestedToolCall[];
}

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' ? (v as Obj) : undefined;
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}
function sum(...parts: (number | undefined)[]): number | undefined {
  return parts.some((p) => p !== undefined) ? parts.reduce<number>((a, p) => a + (p ?? 0), 0) : undefined;
}

/** Tool-call arguments arrive as JSON text in OpenAI's format: parsed when they are JSON. */
function parseArguments(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** `name {"arg":...}` per call, one per line, else the reply text. */
export function actionText(toolCalls: readonly RequestedToolCall[], text: string): string | undefined {
  if (toolCalls.length) {
    return toolCalls
      .map((c) => (c.arguments === undefined ? c.tool : `${c.tool} ${typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments)}`))
      .join('\n');
  }
  return text || undefined;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map((part) => str(obj(part)?.text) ?? '')
    .filter(Boolean)
    .join('\n');
}

/**
 * An OpenAI Chat Completions response (`choices[].message.tool_calls`, `usage.prompt_tokens`),
 * or a Responses API response (`output[]` with `function_call` items, `usage.input_tokens`).
 */
export function openAIChatStep(response: unknown): ChatStep {
  const r = obj(response) ?? {};
  const usage = obj(r.usage) ?? {};
  const toolCalls: RequestedToolCall[] = [];
  let text = '';
  let finish: string | undefined;
  if (Array.isArray(r.output)) {
    // Responses API.
    for (const item of r.output) {
      const o = obj(item);
      if (!o) continue;
      if (o.type === 'function_call') {
        toolCalls.push({ callId: str(o.call_id) ?? str(o.id) ?? '', tool: str(o.name) ?? '', arguments: parseArguments(o.arguments) });
      } else if (o.type === 'message') text += textOf(o.content);
    }
    finish = str(r.status);
  } else {
    const choice = obj(arr(r.choices)[0]) ?? {};
    const message = obj(choice.message) ?? {};
    text = textOf(message.content);
    finish = str(choice.finish_reason);
    for (const c of arr(message.tool_calls)) {
      const call = obj(c);
      const fn = obj(call?.function);
      if (!call || !fn) continue;
      toolCalls.push({ callId: str(call.id) ?? '', tool: str(fn.name) ?? '', arguments: parseArguments(fn.arguments) });
    }
  }
  const inputDetails = obj(usage.prompt_tokens_details) ?? obj(usage.input_tokens_details) ?? {};
  const outputDetails = obj(usage.completion_tokens_details) ?? obj(usage.output_tokens_details) ?? {};
  const calls = toolCalls.filter((c) => c.tool);
  return {
    step: {
      model: str(r.model),
      // OpenAI counts the whole prompt, cached tokens included, as Trajscope does.
      inputTokens: count(usage.prompt_tokens) ?? count(usage.input_tokens),
      outputTokens: count(usage.completion_tokens) ?? count(usage.output_tokens),
      cacheReadTokens: count(inputDetails.cached_tokens),
      reasoningTokens: count(outputDetails.reasoning_tokens),
      action: actionText(calls, text),
      metadata: metadataOf({ response_id: str(r.id), finish_reason: finish }),
    },
    toolCalls: calls,
  };
}

/** An Anthropic Messages response (`content[]` with `tool_use` blocks, `usage.input_tokens`). */
export function anthropicMessageStep(response: unknown): ChatStep {
  const r = obj(response) ?? {};
  const usage = obj(r.usage) ?? {};
  const toolCalls: RequestedToolCall[] = [];
  const texts: string[] = [];
  for (const b of arr(r.content)) {
    const block = obj(b);
    if (!block) continue;
    if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      toolCalls.push({ callId: str(block.id) ?? '', tool: str(block.name) ?? '', arguments: block.input });
    } else if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
  }
  const cacheRead = count(usage.cache_read_input_tokens);
  const cacheWrite = count(usage.cache_creation_input_tokens);
  const calls = toolCalls.filter((c) => c.tool);
  return {
    step: {
      model: str(r.model),
      // Anthropic counts only the uncached part of the prompt; Trajscope counts all of it.
      inputTokens: sum(count(usage.input_tokens), cacheRead, cacheWrite),
      outputTokens: count(usage.output_tokens),
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      action: actionText(calls, texts.join('\n')),
      metadata: metadataOf({ response_id: str(r.id), stop_reason: str(r.stop_reason) }),
    },
    toolCalls: calls,
  };
}

function metadataOf(m: Record<string, string | undefined>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) if (v !== undefined) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}
