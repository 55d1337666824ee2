// Images and binary data in a trajectory, in headless Chromium against the real server: an image
// observation (a data URL) is drawn as an image, gzip bytes in a tool output are described (type,
// size) with a download, a long log gets a download; none is drawn as base64 characters.
import { describe, expect, it } from 'vitest';
import { dashboardForFile } from './start-server.js';

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const GZIP = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), Buffer.alloc(300, 65)]).toString('base64');
const LOG = Array.from({ length: 1500 }, (_, i) => `line ${i}: compiling module ${i % 97}`).join('\n');
const NOW = Date.now();
const at = (s: number) => new Date(NOW - 600_000 + s * 1000).toISOString();

const file = dashboardForFile({
  viewport: { width: 1280, height: 900 },
  async fill(server) {
    await server.ingest([
      { type: 'run_start', run_id: 'shots', ts: at(0), model: 'm-1' },
      { type: 'step', run_id: 'shots', step: 0, ts: at(1), action: 'screenshot', observation: `data:image/png;base64,${PNG}` },
      { type: 'step', run_id: 'shots', step: 1, ts: at(2), action: 'fetch archive', observation: 'fetched' },
      { type: 'tool_call', run_id: 'shots', step: 1, call_id: 'c1', ts: at(2), tool: 'http_get', arguments: { url: 'http://127.0.0.1/x.gz' }, status: 'ok', output: GZIP },
      { type: 'step', run_id: 'shots', step: 2, ts: at(3), action: 'make', observation: LOG },
      { type: 'run_end', run_id: 'shots', ts: at(9), status: 'success' },
    ]);
    for (let i = 0; i < 100; i++) {
      const r = await fetch(`${server.url}/api/v1/runs/shots`);
      if (r.ok && ((await r.json()) as any).steps.length === 3) return;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('the run was not stored in time');
  },
});

describe('images and binary data in a trajectory', () => {
  it('draws an image, describes binary data with a download, and offers a long log as a download', async () => {
    const { page } = file;
    await page.goto(`${file.server.url}/runs/shots`);
    const blocks = page.getByTestId('data-block');
    await blocks.first().waitFor();
    const image = page.locator('[data-testid="data-block"][data-mime="image/png"]');
    await image.locator('img').waitFor();
    // Decoded: the picture is 1×1.
    await page.waitForFunction(() => ((document.querySelector('[data-mime="image/png"] img') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0, undefined, { timeout: 10_000 });
    expect(await image.locator('img').evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([1, 1]);
    expect(await image.textContent()).toContain('PNG image · 70 B');
    const gzip = page.locator('[data-testid="data-block"][data-mime="application/gzip"]');
    expect(await gzip.textContent()).toContain('gzip data · 304 B');
    // No base64 characters drawn anywhere.
    expect(await page.locator('pre', { hasText: 'iVBORw0KGgo' }).count()).toBe(0);
    expect(await page.locator('pre', { hasText: GZIP.slice(0, 40) }).count()).toBe(0);
    const [download] = await Promise.all([page.waitForEvent('download'), gzip.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('output.gzip');
    // The long log: collapsed, with a download of the whole text.
    const log = page.locator('.text-block', { hasText: 'line 0: compiling module 0' });
    await log.getByRole('button', { name: 'Download' }).waitFor();
    expect(await log.getByRole('button', { name: /^Show all \([\d,]+ lines/ }).count()).toBe(1);
    expect(file.errors).toEqual([]);
  });
});
