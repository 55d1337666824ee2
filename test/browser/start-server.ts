// Starts the real Trajscope server in-process for browser tests: embedded storage in a fresh
// temporary folder, an ephemeral port on loopback, and the built dashboard (dist/web).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../bin/config.js';
import { repoPath } from '../../schemas/paths.js';
import { startServer } from '../../server/index.js';

export interface TestServer {
  url: string;
  /** POSTs events (NDJSON) to /v1/events and returns the parsed answer; throws on a non-2xx status. */
  ingest(events: object[]): Promise<{ accepted: number; rejected: { index: number; error: string }[] }>;
  close(): Promise<void>;
}

/** Builds the dashboard once when dist/web is missing (npm test builds it before vitest runs). */
async function ensureDashboardBuilt(): Promise<void> {
  if (existsSync(repoPath('dist', 'web', 'index.html'))) return;
  const { build } = await import('vite');
  await build({ configFile: repoPath('vite.config.ts'), logLevel: 'warn' });
}

/** `env`: extra settings, e.g. TRAJSCOPE_ADMIN_TOKEN for the sign-in test. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  await ensureDashboardBuilt();
  const dataDir = await mkdtemp(join(tmpdir(), 'trajscope-browser-'));
  const config = loadConfig({
    TRAJSCOPE_HOST: '127.0.0.1',
    TRAJSCOPE_PORT: '0',
    TRAJSCOPE_DATA_DIR: dataDir,
    TRAJSCOPE_LOG_LEVEL: 'warn',
    TRAJSCOPE_BATCH_MAX_AGE_MS: '50',
    ...env,
  });
  const running = await startServer(config);
  return {
    url: running.url,
    async ingest(events) {
      const res = await fetch(`${running.url}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: events.map((e) => JSON.stringify(e)).join('\n'),
      });
      const body = (await res.json()) as { accepted: number; rejected: { index: number; error: string }[] };
      if (!res.ok) throw new Error(`ingest failed: HTTP ${res.status} ${JSON.stringify(body)}`);
      return body;
    },
    async close() {
      await running.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
