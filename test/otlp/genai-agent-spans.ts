// Records the spans of one agent run with the real OpenTelemetry SDK, as a GenAI-instrumented
// agent would emit them: an invoke_agent span around three model calls (current and legacy
// attribute names) and two tool executions, one of which fails.
import { context, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';

/** What the run must look like once its spans are in (counted from the spans below). */
export const EXPECTED = {
  agent: 'coder',
  agentVersion: '1.2.0',
  steps: [
    { model: 'gpt-4o-2024-08-06', input: 1000, output: 50, cacheRead: 200, reasoning: 0 },
    { model: 'gpt-4o', input: 1200, output: 80, cacheRead: 0, reasoning: 30 },
    { model: 'gemini-2.0-flash', input: 1500, output: 20, cacheRead: 0, reasoning: 0 },
  ],
  tools: [
    { callId: 'call_read', tool: 'read_file', step: 0, status: 'ok' },
    { callId: 'call_test', tool: 'run_tests', step: 1, status: 'error', errorType: 'ToolExecutionError', message: 'exit status 1' },
  ],
};

export interface RecordedRun {
  traceId: string;
  spans: ReadableSpan[];
}

/** Records the run; `t0` (epoch ms) places it in time so runs of different tests differ. */
export async function recordAgentRun(t0: number, conversation: string): Promise<RecordedRun> {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('genai-test-agent', '1.0.0');
  const at = (ms: number) => t0 + ms;
  const child = (parent: Span, name: string, start: number, attributes: Record<string, string | number | string[]>) =>
    tracer.startSpan(name, { startTime: at(start), attributes }, trace.setSpan(context.active(), parent));

  const agent = tracer.startSpan('invoke_agent coder', {
    startTime: at(0),
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'coder',
      'gen_ai.agent.version': '1.2.0',
      'gen_ai.conversation.id': conversation,
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
    },
  });
  const chat1 = child(agent, 'chat gpt-4o', 10, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.response.model': 'gpt-4o-2024-08-06',
    'gen_ai.usage.input_tokens': 1000,
    'gen_ai.usage.output_tokens': 50,
    'gen_ai.usage.cache_read.input_tokens': 200,
    'gen_ai.response.finish_reasons': ['tool_calls'],
    'gen_ai.output.messages': JSON.stringify([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_read', name: 'read_file', arguments: { path: 'src/app.py' } }] },
    ]),
  });
  chat1.end(at(900));
  const tool1 = child(agent, 'execute_tool read_file', 950, {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'read_file',
    'gen_ai.tool.call.id': 'call_read',
    'gen_ai.tool.call.arguments': '{"path": "src/app.py"}',
    'gen_ai.tool.call.result': 'def main():\n    return 1\n',
  });
  tool1.end(at(1000));
  // Legacy names: gen_ai.system, prompt/completion tokens; no operation attribute (span name).
  const chat2 = child(agent, 'chat gpt-4o', 1100, {
    'gen_ai.system': 'openai',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.prompt_tokens': 1200,
    'gen_ai.usage.completion_tokens': 80,
    'gen_ai.usage.reasoning.output_tokens': 30,
  });
  chat2.end(at(2000));
  // No call id in the model output: the tool call goes to the last step started before it.
  const tool2 = child(agent, 'execute_tool run_tests', 2100, {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'run_tests',
    'gen_ai.tool.call.id': 'call_test',
    'gen_ai.tool.call.arguments': '{"path": "tests/"}',
    'error.type': 'ToolExecutionError',
  });
  tool2.setStatus({ code: SpanStatusCode.ERROR, message: 'exit status 1' });
  tool2.end(at(4000));
  const chat3 = child(agent, 'generate_content gemini-2.0-flash', 4100, {
    'gen_ai.operation.name': 'generate_content',
    'gen_ai.provider.name': 'gcp.gemini',
    'gen_ai.request.model': 'gemini-2.0-flash',
    'gen_ai.usage.input_tokens': 1500,
    'gen_ai.usage.output_tokens': 20,
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'The tests fail on main(); done.' }] }]),
  });
  chat3.end(at(4500));
  agent.end(at(4600));
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  await provider.shutdown();
  return { traceId: agent.spanContext().traceId, spans };
}

/**
 * The spans in the batches an exporter would send them in, out of order: the last model call
 * first, the agent span before the first model call, and one batch sent twice.
 */
export function outOfOrderBatches(spans: ReadableSpan[]): ReadableSpan[][] {
  const by = (prefix: string, n = 0) => spans.filter((s) => s.name.startsWith(prefix))[n];
  return [
    [by('generate_content'), by('execute_tool run_tests')],
    [by('chat', 1)],
    [by('invoke_agent')],
    [by('execute_tool read_file'), by('chat', 0)],
    [by('chat', 1)],
  ];
}
