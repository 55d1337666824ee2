// The Errors page in headless Chromium against the real server: signatures as the API gives
// them (template with its masked parts, counts, failed share), a row's examples linking to the
// run at its step, and "runs" opening the Runs page narrowed to the signature.
import { describe, expect, it } from 'vitest';
import { dashboardForFile } from './start-server.js';

const NOW = Date.now();
const at = (min: number) => new Date(NOW - min * 60_000).toISOString();
const run = (id: string, min: number, flight: string, status: string) => [
  { type: 'run_start', run_id: id, ts: at(min), model: 'm-1', task: { id: `task-${id}` } },
  { type: 'step', run_id: id, step: 0, ts: at(min - 1), action: 'book', observation: 'trying' },
  { type: 'tool_call', run_id: id, step: 0, call_id: `${id}-c0`, ts: at(min - 1), tool: 'update_reservation_flights', arguments: {}, status: 'error', output: '', error: { type: 'ToolError', message: `Error: flight ${flight} not available on date 2024-05-13` } },
  { type: 'tool_call', run_id: id, step: 1, call_id: `${id}-c1`, ts: at(min - 2), tool: 'pay', arguments: {}, status: 'error', output: '', error: { type: 'ToolError', message: 'Error: payment method not found' } },
  { type: 'run_end', run_id: id, ts: at(min - 5), status },
];

const file = dashboardForFile({
  viewport: { width: 1440, height: 900 },
  async fill(server) {
    await server.ingest([...run('r-1', 90, 'HAT030', 'failure'), ...run('r-2', 60, 'HAT223', 'success'), ...run('r-3', 30, 'HAT101', 'failure')]);
    for (let i = 0; i < 100; i++) {
      if ((await server.api('/api/v1/errors')).occurrences === 6) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the errors were not stored in time');
  },
});

const squash = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim();

describe('the Errors page', () => {
  it('lists the signatures as the API does, opens examples and the runs of a signature', async () => {
    const report = await file.api('/api/v1/errors');
    const flight = report.items.find((i: any) => i.template === 'Error: flight <n> not available on date <time>');
    expect(flight).toMatchObject({ occurrences: 3, runs: 3, failed_runs: 2, tools: ['update_reservation_flights'] });

    const { page } = file;
    await page.goto(`${file.server.url}/errors`);
    const row = page.locator(`tr[data-signature="${flight.signature}"]`);
    await row.waitFor();
    expect(await page.locator('tr[data-signature]').count()).toBe(2);
    expect(squash(await row.locator('.error-template .mono').textContent())).toBe('Error: flight <n> not available on date <time>');
    // First seen in the default window (the last 7 days), like every error here.
    expect(await row.locator('.badge-new').textContent()).toBe('new');
    expect(await row.locator('.placeholder').allTextContents()).toEqual(['<n>', '<time>']);
    expect(squash(await row.textContent())).toContain('67%'); // 2 of 3 runs failed
    // The table fits the 1440 px window.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1440);

    await row.click();
    const examples = page.getByTestId('error-examples');
    await examples.waitFor();
    expect(await examples.locator('pre').first().textContent()).toBe('Error: flight HAT101 not available on date 2024-05-13'); // newest first
    expect(await examples.locator('a').first().getAttribute('href')).toMatch(/^\/runs\/r-3\?.*step=0/);

    await row.getByRole('link', { name: '3' }).click();
    await page.waitForURL(/\/runs\?.*error_signature=/);
    await page.locator('tr[data-run-id]').first().waitFor();
    expect((await page.locator('tr[data-run-id]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-run-id')))).sort()).toEqual(['r-1', 'r-2', 'r-3']);
    // The notice names the error by its template once it has it.
    await page.waitForFunction(() => document.querySelector('[data-testid="signature-notice"]')?.textContent?.includes('Error: flight <n> not available on date <time>'));
    await page.getByRole('button', { name: 'Show all runs' }).click();
    await page.waitForFunction(() => !location.search.includes('error_signature'));
    expect(file.errors).toEqual([]);
  });
});
