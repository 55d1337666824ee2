// How the dashboard loads, in headless Chromium against the real server: the first view's data is
// asked for by the entry script before the app mounts, and the app then uses those answers
// instead of asking again; the app's chunk is preloaded by index.html (and fetched once); hashed assets are sent
// compressed and cached for good, index.html is revalidated.
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { repoPath } from '../../schemas/paths.js';
import { fixtureEvents } from './fixture-runs.js';
import { startTestServer, type TestServer } from './start-server.js';

let server: TestServer;
let browser: Browser;
const errors: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  expect((await server.ingest(fixtureEvents(new Date()))).rejected).toEqual([]);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens `path` in a fresh context and records the API requests in the order they were sent. */
async function openRecording(path: string, ready: string): Promise<{ page: Page; api: string[]; assets: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  const api: string[] = [];
  const assets: string[] = [];
  page.on('request', (r: Request) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/')) api.push(`${u.pathname}${u.search}`);
    if (u.pathname.startsWith('/assets/')) assets.push(u.pathname);
  });
  await page.goto(`${server.url}${path}`);
  await page.locator(ready).first().waitFor({ timeout: 20_000 });
  await page.waitForLoadState('networkidle');
  return { page, api, assets, close: () => context.close() };
}

const count = (xs: string[], re: RegExp) => xs.filter((x) => re.test(x)).length;
const firstIndex = (xs: string[], re: RegExp) => xs.findIndex((x) => re.test(x));

describe('first view', () => {
  it('asks for the overview and its first chart before the app mounts, once each', async () => {
    const { api, assets, close } = await openRecording('/', '.chart-card .recharts-bar-rectangle path');
    try {
      // The frame (project picker) asks for /projects once it has mounted; the first view's
      // requests went out before it, and the page took their answers instead of asking again.
      const projects = firstIndex(api, /^\/api\/v1\/projects/);
      expect(projects, api.join('\n')).toBeGreaterThan(0);
      // The preloaded app chunk served the app's import: it was fetched once.
      expect(count(assets, /\/assets\/mount-[\w-]+\.js$/), assets.join('\n')).toBe(1);
      const timeseries = /^\/api\/v1\/metrics\/timeseries\?/;
      expect(count(api, timeseries), api.join('\n')).toBe(1);
      expect(firstIndex(api, timeseries)).toBeLessThan(projects);
      // The overview of the range in view (the previous period's comes later, with a `to`).
      const current = api.filter((x) => /^\/api\/v1\/overview\?/.test(x) && !/[?&]to=/.test(x));
      expect(current, api.join('\n')).toHaveLength(1);
      expect(api.indexOf(current[0])).toBeLessThan(projects);
    } finally {
      await close();
    }
  });

  it('asks for a run and its step outline before the app mounts, once each', async () => {
    const { page, api, close } = await openRecording('/runs/bt-run-alpha', '.run-header');
    try {
      const projects = firstIndex(api, /^\/api\/v1\/projects/);
      expect(projects, api.join('\n')).toBeGreaterThan(0);
      expect(count(api, /^\/api\/v1\/runs\/bt-run-alpha\?/), api.join('\n')).toBe(1);
      expect(count(api, /^\/api\/v1\/runs\/bt-run-alpha\/steps\/index/)).toBe(1);
      expect(firstIndex(api, /^\/api\/v1\/runs\/bt-run-alpha\/steps\/index/)).toBeLessThan(projects);
      await expect(page.getByRole('heading', { name: 'bt-run-alpha' }).isVisible()).resolves.toBe(true);
    } finally {
      await close();
    }
  });

  it('uses the filters of the address for the first view', async () => {
    const { page, api, close } = await openRecording('/?range=24h&model=claude-sonnet-4', '[data-testid="kpi-runs"]');
    try {
      const ts = api.filter((x) => x.startsWith('/api/v1/metrics/timeseries?'));
      expect(ts, api.join('\n')).toHaveLength(1);
      const q = new URLSearchParams(ts[0].split('?')[1]);
      expect(q.get('model')).toBe('claude-sonnet-4');
      expect(q.get('bucket')).toBe('hour');
      expect(await page.getByTestId('kpi-runs').textContent()).toMatch(/^\d+$/);
    } finally {
      await close();
    }
  });

  it('reports no page errors', () => {
    expect(errors).toEqual([]);
  });
});

describe('dashboard files', () => {
  it('preloads the app chunk from index.html and revalidates index.html', async () => {
    const res = await fetch(`${server.url}/overview-or-any-route`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    const scripts = [...html.matchAll(/<script type="module"[^>]*src="([^"]+)"/g)].map((m) => m[1]);
    const preloads = [...html.matchAll(/<link rel="preload" as="script"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(1);
    expect(preloads.some((p) => /\/assets\/mount-[\w-]+\.js$/.test(p)), html).toBe(true);
  });

  it('sends hashed assets compressed when accepted, cached for a year', async () => {
    const html = readFileSync(repoPath('dist', 'web', 'index.html'), 'utf8');
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
    const original = readFileSync(repoPath('dist', 'web', asset.slice(1)));
    const { request } = await import('node:http');
    // node's fetch decodes bodies itself; a raw request shows what was sent.
    const raw = (encoding: string) =>
      new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
        const req = request(`${server.url}${asset}`, { headers: { 'accept-encoding': encoding } }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
    const br = await raw('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(brotliDecompressSync(br.body).equals(original)).toBe(true);
    const gz = await raw('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(original)).toBe(true);
    const plain = await raw('identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(original)).toBe(true);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers a missing asset with 404, not the index page', async () => {
    const res = await fetch(`${server.url}/assets/index-NOSUCHHASH.js`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toMatch(/<html/);
  });
});
