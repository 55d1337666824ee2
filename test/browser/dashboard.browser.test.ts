// Drives the dashboard in headless Chromium against the real server (embedded storage):
// ingests a few runs through POST /v1/events, then checks what a person sees on the
// overview, the runs table, a run page, a 5,000-step run and the ingest panel. Console errors
// fail the run (except the HTTP errors the error-state test provokes on purpose).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './start-server.js';
import { fixtureEvents, FIXTURE_RUNS } from './fixture-runs.js';
import { LONG_RUN_LOOP_START, longRunEvents, postInChunks, waitForApi } from './long-run.js';
import { modeLabel } from '../../web/src/lib/failure-modes.js';

let server: TestServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const consoleErrors: string[] = [];
/** While true, failed HTTP requests logged by the browser are expected (error-state test). */
let expectHttpErrors = false;


beforeAll(async () => {
  server = await startTestServer();
  const answer = await server.ingest(fixtureEvents(new Date()));
  expect(answer.rejected).toEqual([]);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    // Failed requests are reported with their address by the response handler below.
    if (m.type() !== 'error' || /Failed to load resource/.test(m.text())) return;
    consoleErrors.push(m.text());
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && !expectHttpErrors) consoleErrors.push(`HTTP ${r.status()} ${r.url()}`);
  });
  // The failing fixture run gets its failure mode from the analyzer.
  await waitForApi(server.url, '/api/v1/runs/bt-run-alpha', (b) => b.run.failure_mode !== '');
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function kpi(name: string): Promise<string> {
  return (await page.getByTestId(`kpi-${name}`).textContent())?.trim() ?? '';
}

describe('dashboard', () => {
  it('shows the headline numbers on the overview', async () => {
    // The tiles fill in as their answers arrive (the analyzer labels runs a moment after ingest):
    // each must reach its value within the time limit.
    const KPI_POLL = { timeout: 15_000, interval: 200 };
    await page.goto(`${server.url}/`);
    await page.getByTestId('kpi-runs').waitFor();
    await expect.poll(() => kpi('runs'), KPI_POLL).toBe('3');
    // 2 of 3 ended runs succeeded; 3·0.25 + 2·0.5 + 4·0.125 = $2.25; 8 of 9 tool calls ok.
    await expect.poll(() => kpi('completion-rate'), KPI_POLL).toBe('66.7%');
    await expect.poll(() => kpi('cost'), KPI_POLL).toBe('$2.25');
    await expect.poll(() => kpi('cost-per-success'), KPI_POLL).toBe('$1.13');
    await expect.poll(() => kpi('tool-call-success'), KPI_POLL).toBe('88.9%');
    await page.getByText('95% CI', { exact: false }).first().waitFor();
    await expect.poll(() => kpi('runs-with-loops'), KPI_POLL).toBe('0');
    await page.locator('.recharts-surface').first().waitFor();
    // Runs, cost, steps and failure modes over time, each drawn with data.
    await expect.poll(() => page.locator('.chart-card').count(), KPI_POLL).toBe(4);
    await expect.poll(() => page.locator('.chart-card').first().locator('.recharts-bar-rectangle path').count(), KPI_POLL).toBeGreaterThan(0);
    await page.getByRole('heading', { name: 'Failure modes' }).waitFor();
  });

  it('opens the runs of a chart bar in the runs explorer', async () => {
    await page.goto(`${server.url}/?range=24h`);
    const bars = page.locator('.chart-card').first().locator('.recharts-bar-rectangle path').filter({ visible: true });
    await bars.first().waitFor();
    await page.waitForLoadState('networkidle');
    await bars.first().hover();
    await bars.first().click();
    await page.waitForURL(/\/runs\?.*from=.*to=/);
    const rows = page.locator('tr[data-run-id]');
    await rows.first().waitFor();
    const url = new URL(page.url());
    const from = Date.parse(url.searchParams.get('from')!);
    const to = Date.parse(url.searchParams.get('to')!);
    expect(to - from).toBeLessThanOrEqual(3600_000);
    // Every run listed started inside the clicked hour.
    for (const id of await rows.evaluateAll((trs) => trs.map((t) => t.getAttribute('data-run-id')))) {
      const run = (await (await fetch(`${server.url}/api/v1/runs/${id}`)).json()).run;
      const t = Date.parse(run.started_at);
      expect(t >= from && t < to).toBe(true);
    }
  });

  it('clicks through from a failure-mode segment to the failed run', async () => {
    await page.goto(`${server.url}/`);
    const mode = (await (await fetch(`${server.url}/api/v1/runs/bt-run-alpha`)).json()).run.failure_mode;
    const segment = page.locator('.chart-card').nth(3).locator('.recharts-bar-rectangle path').filter({ visible: true }).first();
    await segment.waitFor();
    await page.waitForLoadState('networkidle');
    await segment.hover();
    await segment.click();
    await page.waitForURL(new RegExp(`/runs\\?.*failure_mode=${mode}`));
    const rows = page.locator('tr[data-run-id]');
    await expect.poll(() => rows.count(), { message: page.url() }).toBe(1);
    await rows.first().locator('td').nth(2).click();
    await page.waitForURL(/\/runs\/bt-run-alpha/);
    await page.getByRole('heading', { name: 'bt-run-alpha' }).waitFor();
  });

  it('lists the runs, sorts and searches them', async () => {
    await page.goto(`${server.url}/`);
    await page.getByTestId('kpi-runs').waitFor();
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.waitForURL(/\/runs$/);
    const rows = page.locator('tr[data-run-id]');
    await rows.first().waitFor();
    await expect.poll(() => rows.count()).toBe(FIXTURE_RUNS.length);

    const alpha = page.locator('tr[data-run-id="bt-run-alpha"]');
    const text = (await alpha.innerText()).replace(/\s+/g, ' ');
    const alphaMode = (await (await fetch(`${server.url}/api/v1/runs/bt-run-alpha`)).json()).run.failure_mode;
    // The failure mode by the registry's label ("Tests failed"), never its raw name.
    for (const part of ['failure', 'bt-run-alpha', 'django__django-11265', modeLabel(alphaMode), 'claude-sonnet-4', 'repo-fixer@3.2.0', '$0.75', '18 s']) {
      expect(text).toContain(part);
    }

    // Most expensive first, then cheapest first.
    await page.getByRole('button', { name: /Cost/ }).click();
    await page.waitForURL(/sort=cost_usd&order=desc/);
    await expect.poll(() => rows.first().getAttribute('data-run-id')).toBe('bt-run-bravo');
    await page.getByRole('button', { name: /Cost/ }).click();
    await page.waitForURL(/order=asc/);
    await expect.poll(() => rows.first().getAttribute('data-run-id')).toBe('bt-run-charlie');

    await page.getByRole('searchbox', { name: 'Search runs' }).fill('sympy');
    await page.waitForURL(/q=sympy/);
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-run-id')).toBe('bt-run-bravo');
  });

  it('filters through the URL and the filter bar', async () => {
    await page.goto(`${server.url}/runs?model=gpt-4.1`);
    const rows = page.locator('tr[data-run-id]');
    await rows.first().waitFor();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page.getByLabel('Model').inputValue()).toBe('gpt-4.1');

    await page.getByLabel('Model').selectOption('');
    await expect.poll(() => rows.count()).toBe(3);
    await page.getByLabel('Status').selectOption('success');
    await page.waitForURL(/status=success/);
    await expect.poll(() => rows.count()).toBe(2);

    // The overview keeps the filters when switching views.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.waitForURL(/\/\?status=success/);
    await expect.poll(() => kpi('runs')).toBe('2');
    await expect.poll(() => kpi('completion-rate')).toBe('100%');
  });

  it('opens a run with its steps and tool calls', async () => {
    await page.goto(`${server.url}/runs`);
    await page.locator('tr[data-run-id="bt-run-alpha"] td').nth(2).click();
    await page.waitForURL(/\/runs\/bt-run-alpha/);
    await page.getByRole('heading', { name: 'bt-run-alpha' }).waitFor();

    const header = (await page.locator('.run-header').innerText()).replace(/\s+/g, ' ');
    for (const part of ['repo-fixer@3.2.0', 'claude-sonnet-4', 'django__django-11265', '11 passed · 2 failed', '$0.75', 'reward 0']) {
      expect(header).toContain(part);
    }

    const stepCards = page.locator('.step-card');
    await expect.poll(() => stepCards.count()).toBe(3);
    const failing = page.locator('#step-1');
    const failingText = await failing.innerText();
    expect(failingText).toContain("ImportError: cannot import name 'FilteredRelation'");
    expect(failingText).toContain('ToolError');
    const call = failing.locator('.tool-call');
    expect(await call.locator('.tool-name').innerText()).toBe('str_replace_editor');
    const callText = await call.innerText();
    expect(callText).toContain('"path": "src/module_1.py"');
    expect(callText).toContain('ExitCode');
    expect(callText).toContain('180 ms');
    expect(await page.locator('#step-0').innerText()).toContain("grep -rn 'FilteredRelation' bt-run-alpha.py");

    // "errors only" keeps the failing step alone.
    await page.getByLabel('errors only').check();
    await expect.poll(() => stepCards.count()).toBe(1);
    await page.locator('.step-chart .recharts-surface').waitFor();
  });

  it('explains missing runs and API failures', async () => {
    expectHttpErrors = true;
    await page.goto(`${server.url}/runs/no-such-run`);
    await page.getByText('Run “no-such-run” not found').waitFor();

    await page.route('**/api/v1/overview*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'unavailable', message: 'storage is down' } }) }),
    );
    await page.goto(`${server.url}/`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toContain('storage is down');
    await page.unroute('**/api/v1/overview*');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('kpi-runs').waitFor();
    await page.waitForLoadState('networkidle');
    expectHttpErrors = false;
  });

  it('shows ingest throughput and the latest rejections', async () => {
    // Nothing refused yet: the table's empty state says so.
    await page.goto(`${server.url}/ingest`);
    await page.getByTestId('kpi-events-s').waitFor();
    const rejections = page.getByRole('region', { name: 'Recent rejections' });
    await rejections.getByText('No event has been rejected since this server started.').waitFor();
    expect(await rejections.locator('table').count()).toBe(0);

    // One request with one bad event, then one with three (event #0, #1 and #2 of it).
    const post = (events: object[]) =>
      fetch(`${server.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(events) });
    const ts = new Date().toISOString();
    expect((await post([{ v: 1, type: 'step', project: 'default', ts }])).status).toBe(400);
    const second = await post([
      { v: 1, type: 'step', run_id: 'bt-bad', project: 'default', ts: 'not a time', step: 0 },
      { v: 1, type: 'nope', run_id: 'bt-bad' },
      { v: 1, type: 'step', project: 'default', ts },
    ]);
    expect(second.status).toBe(400);
    // The page refreshes every 2 s.
    await expect.poll(() => kpi('rejected'), { timeout: 10_000 }).toBe('4');
    const table = page.getByTestId('ingest-rejections');
    await expect.poll(() => table.locator('tbody tr').count(), { timeout: 10_000 }).toBe(4);
    expect(await rejections.innerText()).toMatch(/run_id/);

    // Newest first, and the header says so; the event numbers are right-aligned.
    const header = (name: string) => table.getByRole('columnheader', { name, exact: true });
    const events = () => table.locator('td[data-col="event"]').allInnerTexts();
    expect(await header('When').getAttribute('aria-sort')).toBe('descending');
    expect(await events()).toEqual(['0', '1', '2', '0']);
    expect(await table.locator('td[data-col="event"]').first().evaluate((td) => getComputedStyle(td).textAlign)).toBe('right');
    // Event # sorts low to high, then high to low; ties keep the newest first.
    await header('Event #').getByRole('button').click();
    expect(await header('Event #').getAttribute('aria-sort')).toBe('ascending');
    expect(await header('When').getAttribute('aria-sort')).toBeNull();
    expect(await events()).toEqual(['0', '0', '1', '2']);
    await header('Event #').getByRole('button').click();
    expect(await header('Event #').getAttribute('aria-sort')).toBe('descending');
    expect(await events()).toEqual(['2', '1', '0', '0']);
    // The order holds across the page's 2 s refresh.
    await page.waitForResponse((r) => r.url().includes('/api/v1/ingest/status'));
    await page.waitForResponse((r) => r.url().includes('/api/v1/ingest/status'));
    expect(await events()).toEqual(['2', '1', '0', '0']);
    // Reason sorts A to Z.
    await header('Reason').getByRole('button').click();
    expect(await header('Reason').getAttribute('aria-sort')).toBe('ascending');
    const reasons = await table.locator('td[data-col="reason"]').allInnerTexts();
    expect(reasons).toEqual([...reasons].sort(new Intl.Collator('en-US', { numeric: true, sensitivity: 'base' }).compare));

    await page.getByRole('region', { name: 'Throughput' }).locator('.recharts-surface').waitFor();
  });
});

describe('a 5,000-step run', () => {
  const RUN = 'bt-run-marathon';

  beforeAll(async () => {
    await postInChunks(server.url, longRunEvents(RUN, 5000, new Date()));
    await waitForApi(server.url, `/api/v1/runs/${RUN}`, (b) => b.run.steps === 5000 && (b.analysis?.loops.length ?? 0) > 0);
  }, 120_000);

  it('opens with its chart and only the visible steps in the page', async () => {
    const windows: string[] = [];
    const onRequest = (r: { url(): string }) => {
      if (r.url().includes(`/runs/${RUN}/steps?`)) windows.push(r.url());
    };
    page.on('request', onRequest);
    // The full view (a card per step): a run this long opens compact by default.
    await page.goto(`${server.url}/runs/${RUN}?view=full`);
    await page.getByRole('heading', { name: RUN }).waitFor();
    await page.locator('.step-chart .recharts-bar-rectangle path').first().waitFor();
    expect(await page.locator('.step-chart').innerText()).toContain('5,000 steps');
    await page.locator('#step-0 .step-part').first().waitFor({ timeout: 60_000 });
    const inDom = await page.locator('.step-card').count();
    expect(inDom).toBeGreaterThan(2);
    expect(inDom).toBeLessThan(40);

    // Scroll to the end: the last window of steps is fetched, the ending step is marked.
    // Like holding End: heights become real as cards render, so scroll until the end stays put.
    const last = page.locator('#step-4999');
    // Bounded by the poll's timeout. The card may be re-rendered while windows arrive, so its text
    // is read in the same check that finds it rendered.
    await expect
      .poll(
        async () => {
          if ((await last.count()) === 0 || (await last.locator('.step-part').count()) === 0) {
            await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
            return '';
          }
          return last.innerText({ timeout: 1000 }).catch(() => '');
        },
        { timeout: 60_000, interval: 400 },
      )
      .toContain('ended the run');
    expect(await page.locator('.step-card').count()).toBeLessThan(40);
    page.off('request', onRequest);
    // Texts came in small windows, never the whole run at once.
    expect(windows.length).toBeGreaterThan(0);
    for (const u of windows) expect(Number(new URL(u).searchParams.get('limit'))).toBeLessThanOrEqual(100);
  }, 180_000);

  it('links to a loop and deep-links to a step', async () => {
    await page.goto(`${server.url}/runs/${RUN}`);
    const loopLink = page.locator('.run-findings .loop-link').first();
    await loopLink.waitFor();
    expect(await loopLink.innerText()).toContain(`steps ${LONG_RUN_LOOP_START + 1}–`);
    await loopLink.click();
    await page.waitForURL(new RegExp(`step=${LONG_RUN_LOOP_START}`));
    const start = page.locator(`#step-${LONG_RUN_LOOP_START}`);
    await start.locator('.step-part').first().waitFor();
    await expect.poll(() => start.getAttribute('class')).toContain('step-highlight');
    expect(await start.innerText()).toContain('loop 1');
    await expect.poll(() => start.evaluate((el) => Math.round(el.getBoundingClientRect().top))).toBeLessThan(200);

    // A shared link opens the run at the step, also in #step-N form.
    for (const link of [`/runs/${RUN}?step=2500`, `/runs/${RUN}#step-3100`]) {
      const step = link.match(/(\d+)$/)![1];
      await page.goto(`${server.url}${link}`);
      const card = page.locator(`#step-${step}`);
      await card.locator('.step-part').first().waitFor();
      await expect.poll(() => card.getAttribute('class')).toContain('step-highlight');
      await expect.poll(() => card.evaluate((el) => el.getBoundingClientRect().top)).toBeLessThan(200);
      expect(await card.innerText()).toContain(`Step ${step}:`);
    }
  }, 180_000);

  it('raised no errors in the page', () => {
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
