// POST /v1/traces with the real OpenTelemetry SDK and its OTLP/HTTP exporters (JSON and
// protobuf, gzip): an agent's GenAI spans, exported in several batches out of order and one
// batch twice, come out as one run with its steps, tokens, tool calls and errors.
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, removeDataDir, startTestServer, type TestServer } from '../helpers/test-server.js';
import { EXPECTED, outOfOrderBatches, recordAgentRun } from '../otlp/genai-agent-spans.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.close();
  removeDataDir(srv.dataDir);
});

function exportBatch(exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> {
  return new Promise((resolve, reject) =>
    exporter.export(spans, (r) => (r.code === 0 ? resolve() : reject(r.error ?? new Error('export failed')))),
  );
}

async function runOf(traceId: string) {
  const { status, body } = await getJson(srv.url, `/api/v1/runs/${traceId}`);
  expect(status).toBe(200);
  return body;
}

const exporters = {
  json: () => new JsonExporter({ url: `${srv.url}/v1/traces` }),
  // The exporter's CompressionAlgorithm.GZIP is the string 'gzip'.
  protobuf: () => new ProtoExporter({ url: `${srv.url}/v1/traces`, compression: 'gzip' as never }),
};

describe.each(Object.keys(exporters) as (keyof typeof exporters)[])('OTLP/HTTP %s', (encoding) => {
  it('maps an agent run exported in batches out of order, one of them twice', async () => {
    const t0 = Date.parse('2026-11-30T10:00:00Z') + (encoding === 'json' ? 0 : 60_000);
    const { traceId, spans } = await recordAgentRun(t0, `conv-${encoding}`);
    const exporter = exporters[encoding]();
    for (const batch of outOfOrderBatches(spans)) await exportBatch(exporter, batch);
    await exporter.shutdown();

    const body = await runOf(traceId);
    expect(body.run).toMatchObject({
      run_id: traceId,
      agent_name: EXPECTED.agent,
      agent_version: EXPECTED.agentVersion,
      model: 'gpt-4o',
      status: 'success',
      steps: 3,
      tool_calls: 2,
      tool_errors: 1,
      input_tokens: 1000 + 1200 + 1500,
      output_tokens: 50 + 80 + 20,
    });
    expect(body.run.tags).toMatchObject({ conversation_id: `conv-${encoding}`, provider: 'openai' });
    expect(Date.parse(body.run.started_at)).toBe(t0);
    expect(Date.parse(body.run.ended_at)).toBe(t0 + 4600);

    expect(body.steps).toHaveLength(3);
    EXPECTED.steps.forEach((want, i) => {
      expect(body.steps[i]).toMatchObject({
        step: i,
        model: want.model,
        input_tokens: want.input,
        output_tokens: want.output,
        cache_read_tokens: want.cacheRead,
        reasoning_tokens: want.reasoning,
      });
    });
    expect(body.steps.map((s: { latency_ms: number }) => s.latency_ms)).toEqual([890, 900, 400]);
    expect(body.steps[0].action).toContain('read_file');
    expect(body.steps[2].action).toBe('The tests fail on main(); done.');

    const calls = [...body.tool_calls].sort((a: { step: number }, b: { step: number }) => a.step - b.step);
    expect(calls).toHaveLength(2);
    EXPECTED.tools.forEach((want, i) => {
      expect(calls[i]).toMatchObject({ call_id: want.callId, tool: want.tool, step: want.step, status: want.status });
    });
    expect(calls[0].arguments).toBe('{"path":"src/app.py"}');
    expect(calls[0].output).toContain('def main()');
    expect(calls[1]).toMatchObject({ error_type: 'ToolExecutionError', error_message: 'exit status 1', duration_ms: 1900 });
  });
});

describe('OTLP/HTTP concurrent exports', () => {
  it('numbers the steps right when the batches of one trace arrive at the same time', async () => {
    const t0 = Date.parse('2026-11-30T11:00:00Z');
    const { traceId, spans } = await recordAgentRun(t0, 'conv-concurrent');
    const exporter = exporters.protobuf();
    await Promise.all(outOfOrderBatches(spans).map((batch) => exportBatch(exporter, batch)));
    await exporter.shutdown();
    const body = await runOf(traceId);
    expect(body.run).toMatchObject({ agent_name: EXPECTED.agent, status: 'success', steps: 3, tool_calls: 2, tool_errors: 1 });
    expect(body.steps.map((s: { model: string }) => s.model)).toEqual(EXPECTED.steps.map((s) => s.model));
    expect(body.tool_calls.map((c: { call_id: string; step: number }) => [c.call_id, c.step]).sort()).toEqual([
      ['call_read', 0],
      ['call_test', 1],
    ]);
  });
});

describe('OTLP/HTTP answers', () => {
  it('reports spans without valid ids in partial_success and keeps the others', async () => {
    const res = await fetch(`${srv.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'trajscope.project', value: { stringValue: 'otel-json' } }] },
            scopeSpans: [
              {
                spans: [
                  { traceId: 'zz', spanId: '0102030405060708', name: 'chat x' },
                  {
                    traceId: '0af7651916cd43dd8448eb211c80319c',
                    spanId: 'b7ad6b7169203331',
                    name: 'chat claude',
                    startTimeUnixNano: '1764496800000000000',
                    endTimeUnixNano: '1764496801500000000',
                    attributes: [
                      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
                      { key: 'gen_ai.request.model', value: { stringValue: 'claude-sonnet-4' } },
                      { key: 'gen_ai.usage.input_tokens', value: { intValue: '321' } },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.partialSuccess).toMatchObject({ rejectedSpans: '1', errorMessage: expect.stringContaining('traceId') });
    const run = await getJson(srv.url, '/api/v1/runs/0af7651916cd43dd8448eb211c80319c?project=otel-json');
    expect(run.status).toBe(200);
    expect(run.body.steps).toEqual([expect.objectContaining({ step: 0, model: 'claude-sonnet-4', input_tokens: 321, latency_ms: 1500 })]);
  });

  it('answers 400 with a Status body to what is not an OTLP request', async () => {
    const json = await fetch(`${srv.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: 3, message: expect.stringContaining('not a valid JSON') });
    const proto = await fetch(`${srv.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0x0f]),
    });
    expect(proto.status).toBe(400);
    expect(proto.headers.get('content-type')).toContain('application/x-protobuf');
  });
});
