// With API keys required: the OpenTelemetry exporter sends its ingest key as a header and the
// spans land in the key's project whatever the resource says; without a key the export is
// refused. `trajscope import --url --key` sends with a key too.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../bin/import-command.js';
import { call, createKey, projectRun } from '../helpers/auth-requests.js';
import { newDataDir, removeDataDir, startTestServer, testConfig, type TestServer } from '../helpers/test-server.js';
import { recordAgentRun } from '../otlp/genai-agent-spans.js';

const ADMIN = 'otlp-admin-token-0123456789';
let srv: TestServer;
const scratch = newDataDir();

beforeAll(async () => {
  srv = await startTestServer({ TRAJSCOPE_ADMIN_TOKEN: ADMIN });
  console.log = () => {}; // the import summary
});
afterAll(async () => {
  await srv?.close();
  if (srv) removeDataDir(srv.dataDir);
  removeDataDir(scratch);
});

describe('OTLP and import with API keys', () => {
  it('stores exported spans in the ingest key’s project, and refuses an export without a key', async () => {
    const { key } = await createKey(srv.url, ADMIN, 'ingest', 'team-a');
    const { traceId, spans } = await recordAgentRun(Date.parse('2026-11-30T12:00:00Z'), 'conv-keys');
    const exporter = new OTLPTraceExporter({ url: `${srv.url}/v1/traces`, headers: { Authorization: `Bearer ${key}` } });
    await new Promise<void>((resolve, reject) => exporter.export(spans, (r) => (r.code === 0 ? resolve() : reject(r.error))));
    await exporter.shutdown();
    const run = await call(srv.url, 'GET', `/api/v1/runs/${traceId}?project=team-a`, ADMIN);
    expect(run.status).toBe(200);
    expect(run.body.run).toMatchObject({ project: 'team-a', agent_name: 'coder', steps: 3, tool_calls: 2 });

    const refused = await call(srv.url, 'POST', '/v1/traces', undefined, { resourceSpans: [] });
    expect(refused.status).toBe(401);
  });

  it('imports over HTTP with --key, and reports the refusal without one', async () => {
    const { key } = await createKey(srv.url, ADMIN, 'ingest', 'team-b');
    const file = join(scratch, 'run.ndjson');
    writeFileSync(file, projectRun('ignored', 'imported-with-key').map((e) => JSON.stringify(e)).join('\n'));
    const config = testConfig(newDataDir());
    await expect(runImport(config, [file], { url: srv.url, progress: false })).rejects.toThrow(/refused the events \(401\): this server requires an API key/);
    expect(await runImport(config, [file], { url: srv.url, key, progress: false })).toBe(0);
    const run = await call(srv.url, 'GET', '/api/v1/runs/imported-with-key?project=team-b', ADMIN);
    expect(run.body.run).toMatchObject({ project: 'team-b', steps: 2, tool_calls: 1, status: 'success' });
    removeDataDir(config.dataDir);
  });
});
