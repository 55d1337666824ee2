// The Search page in headless Chromium against the real server: "/" from another page opens it
// with the focus in its box, results are the API's (totals, runs, marked snippets), a match opens
// its run at the step, a bad regex says why, and the Runs page leads to it.
import { describe, expect, it } from 'vitest';
import { dashboardForFile } from './start-server.js';

const NOW = Date.now();
const at = (min: number) => new Date(NOW - min * 60_000).toISOString();
const run = (id: string, min: number, observations: string[]) => [
  { type: 'run_start', run_id: id, ts: at(min), model: 'm-1', task: { id: `task-${id}` } },
  ...observations.map((o, i) => ({ type: 'step', run_id: id, step: i, ts: at(min - i - 1), action: `look ${i}`, observation: o })),
  { type: 'run_end', run_id: id, ts: at(min - 20), status: 'failure' },
];

const file = dashboardForFile({
  viewport: { width: 1280, height: 900 },
  async fill(server) {
    await server.ingest([
      ...run('r-old', 120, ['nothing here', 'A Quokka smiled at the camera', 'quokka again']),
      ...run('r-new', 60, ['the quokka ran off']),
      ...run('r-none', 30, ['no animals']),
    ]);
    for (let i = 0; i < 100; i++) {
      const found = await server.api('/api/v1/search?q=quokka');
      if (found.total_hits === 3) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the runs were not stored in time');
  },
});

const squash = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim();

describe('the Search page', () => {
  it('opens with "/" from another page and shows the runs and matches the API finds', async () => {
    const { page } = file;
    await page.goto(`${file.server.url}/runs`);
    await page.locator('[data-run-id]').first().waitFor();
    await page.keyboard.press('/');
    await page.waitForURL(/\/search/);
    const box = page.getByTestId('search-text');
    await box.waitFor();
    expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('QUOKKA');
    await page.keyboard.press('Enter');
    await page.waitForURL(/text=QUOKKA/);
    await page.getByTestId('search-run').first().waitFor();

    const api = await file.api('/api/v1/search?q=QUOKKA');
    expect(api).toMatchObject({ total_runs: 2, total_hits: 3 });
    expect(squash(await page.getByTestId('search-summary').textContent())).toContain('3 matches in 2 runs');
    const ids = await page.getByTestId('search-run').evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')));
    expect(ids).toEqual(api.runs.map((r: any) => r.run_id)); // newest first: r-new, r-old
    expect(ids).toEqual(['r-new', 'r-old']);
    const old = page.locator('[data-testid="search-run"][data-run-id="r-old"]');
    expect(await old.getByTestId('search-snippet').evaluateAll((els) => els.map((e) => e.querySelector('mark')?.textContent))).toEqual(['Quokka', 'quokka']);
    expect(squash(await old.textContent())).toContain('2 matches');

    // Most matches first.
    await page.getByRole('button', { name: 'Most matches first' }).click();
    await page.waitForURL(/sort=hits/);
    await page.waitForFunction(() => document.querySelector('[data-testid="search-run"]')?.getAttribute('data-run-id') === 'r-old');

    // A match opens its run at its step.
    await old.getByRole('link', { name: 'step 2 · observation' }).click();
    await page.waitForURL(/\/runs\/r-old\?.*step=1/);
    expect(file.errors).toEqual([]);
  });

  it('finds in one run: Enter opens the first match, Enter again the next, and the list shows them all', async () => {
    const { page } = file;
    await page.goto(`${file.server.url}/runs/r-old`);
    const find = page.getByRole('searchbox', { name: 'Find in this run' });
    await find.waitFor();
    await find.fill('quokka');
    await find.press('Enter');
    const status = page.getByTestId('find-status');
    await page.waitForFunction(() => document.querySelector('[data-testid="find-status"]')?.textContent === '1 of 2 steps · 2 matches');
    await page.waitForURL(/step=1/);
    await find.press('Enter');
    await page.waitForURL(/step=2/);
    expect(await status.textContent()).toBe('2 of 2 steps · 2 matches');
    await find.press('Shift+Enter');
    await page.waitForURL(/step=1/);
    await page.getByRole('button', { name: 'List all' }).click();
    const list = page.getByTestId('find-list');
    expect(await list.locator('li').evaluateAll((lis) => lis.map((li) => li.querySelector('a')?.textContent))).toEqual(['step 2 · observation', 'step 3 · observation']);
    await find.fill('ferret');
    await find.press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid="find-status"]')?.textContent === 'No match');
    expect(file.errors).toEqual([]);
  });

  it('says why a regular expression cannot run', async () => {
    const { page } = file;
    await page.goto(`${file.server.url}/search?text=${encodeURIComponent('quokka(')}&mode=regex`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(squash(await alert.textContent())).toMatch(/This search cannot run.*not a regular expression the engine can use/);
  });

  it('is one click from the Runs page, with the text typed there', async () => {
    const { page } = file;
    await page.goto(`${file.server.url}/runs?q=quokka`);
    const link = page.getByRole('link', { name: 'Search the steps and tool calls for “quokka”' });
    await link.waitFor();
    await link.click();
    await page.waitForURL(/\/search\?.*text=quokka/);
    expect(new URL(page.url()).searchParams.get('q')).toBeNull(); // the runs' id filter is not carried into the search
    await page.getByTestId('search-run').first().waitFor();
    expect(await page.getByTestId('search-run').count()).toBe(2);
  });
});
