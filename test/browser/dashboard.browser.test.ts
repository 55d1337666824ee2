// Drives the dashboard in headless Chromium against the real server (embedded storage):
// ingests a few runs through POST /v1/events, then checks what a person sees on the
// overview, the runs table and a run page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './start-server.js';
import { fixtureEvents, FIXTURE_RUNS } from './fixture-runs.js';

let server: TestServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

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
    await page.goto(`${server.url}/`);
    await page.getByTestId('kpi-runs').waitFor();
    expect(await kpi('runs')).toBe('3');
    // 2 of 3 ended runs succeeded; 3·0.25 + 2·0.5 + 4·0.125 = $2.25; 8 of 9 tool calls ok.
    expect(await kpi('completion-rate')).toBe('66.7%');
    expect(await kpi('cost')).toBe('$2.25');
    expect(await kpi('cost-per-success')).toBe('$1.13');
    expect(await kpi('tool-call-success')).toBe('88.9%');
    await expect(page.getByText('95% CI', { exact: false }).first().isVisible()).resolves.toBe(true);
    await page.locator('.recharts-surface').first().waitFor();
    expect(await page.locator('.chart-card').count()).toBe(3);
  });

  it('lists the runs, sorts and searches them', async () => {
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.waitForURL(/\/runs$/);
    const rows = page.locator('tr[data-run-id]');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(FIXTURE_RUNS.length);

    const alpha = page.locator('tr[data-run-id="bt-run-alpha"]');
    const text = (await alpha.innerText()).replace(/\s+/g, ' ');
    for (const part of ['failure', 'bt-run-alpha', 'django__django-11265', 'claude-sonnet-4', 'repo-fixer@3.2.0', '$0.75', '18 s']) {
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
    expect(await stepCards.count()).toBe(3);
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
  });

  it('raised no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
