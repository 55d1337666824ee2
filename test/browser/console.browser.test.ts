// Drives the SQL console in headless Chromium against the real server (embedded storage):
// runs a query typed into the editor with Ctrl+Enter, sees typed rows and a chart, downloads
// the CSV and reads the file, sees column names completed, sees an error with its position,
// and saves a query.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './start-server.js';
import { fixtureEvents } from './fixture-runs.js';

let server: TestServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

async function sqlCount(url: string, sql: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql }) });
  const body = (await res.json()) as { rows?: unknown[][] };
  return Number(body.rows?.[0]?.[0] ?? -1);
}

beforeAll(async () => {
  server = await startTestServer();
  const answer = await server.ingest(fixtureEvents(new Date()));
  expect(answer.rejected).toEqual([]);
  // The fixture's 9 steps and 9 tool calls are stored before the page asks for them.
  for (let i = 0; i < 200 && (await sqlCount(server.url, 'SELECT count() FROM tool_calls FINAL')) !== 9; i++) await new Promise((r) => setTimeout(r, 50));
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${server.url}/console`);
  await page.getByTestId('schema-tree').getByRole('button', { name: 'tool_calls', exact: true }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Replaces the editor's text (as a paste would: no completion popups on the way). */
async function setSql(sql: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(sql);
}

const editorText = () => page.locator('.cm-content').innerText();

describe('SQL console', () => {
  it('runs a query with Ctrl+Enter and shows typed rows and a chart', async () => {
    await setSql('SELECT model, count() AS steps, sum(cost_usd) AS cost FROM steps FINAL GROUP BY model ORDER BY model');
    await page.keyboard.press('Control+Enter');
    const table = page.getByTestId('sql-result-table');
    await table.waitFor();
    const headers = (await table.locator('thead th').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
    expect(headers).toEqual(['model LowCardinality(String)', 'steps UInt64', 'cost Float64']);
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const cells = async (i: number) => (await rows.nth(i).locator('td').allInnerTexts()).map((t) => t.trim()).slice(1, 4);
    expect(await cells(0)).toEqual(['claude-sonnet-4', '5', '1.75']);
    expect(await cells(1)).toEqual(['gpt-4.1', '4', '0.5']);
    // Numbers are right-aligned, text is not.
    expect(await rows.nth(0).locator('td').nth(2).evaluate((el) => getComputedStyle(el).textAlign)).toBe('right');
    expect(await rows.nth(0).locator('td').nth(1).evaluate((el) => getComputedStyle(el).textAlign)).not.toBe('right');
    expect((await page.getByTestId('sql-stats').innerText()).replace(/\s+/g, ' ')).toMatch(/^2 rows .*ms .*read \d+ rows/);
    await expect(page.getByTestId('sql-truncated').count()).resolves.toBe(0);
    // The ran query is in the URL, so the result is a link.
    expect(decodeURIComponent(new URL(page.url()).searchParams.get('sql') ?? '')).toContain('GROUP BY model');

    // A bar per row, x = model and y = steps by default; the y picker and line switch work.
    const chart = page.getByTestId('sql-result-chart');
    await chart.locator('.recharts-surface').waitFor();
    await expect.poll(() => chart.locator('.recharts-bar-rectangle').count()).toBe(2);
    expect(await chart.getByLabel('Chart x column').inputValue()).toBe('0');
    await chart.getByLabel('Chart y column').selectOption({ label: 'cost' });
    await chart.getByRole('button', { name: 'Line' }).click();
    await chart.locator('.recharts-line').waitFor();
    await expect.poll(() => chart.locator('.recharts-bar-rectangle').count()).toBe(0);
  });

  it('downloads the result as CSV and JSON', async () => {
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(csv.suggestedFilename()).toMatch(/^trajscope-query-\d{8}-\d{6}\.csv$/);
    expect(await readFile((await csv.path())!, 'utf8')).toBe('model,steps,cost\r\nclaude-sonnet-4,5,1.75\r\ngpt-4.1,4,0.5\r\n');
    const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download JSON' }).click()]);
    expect(JSON.parse(await readFile((await json.path())!, 'utf8'))).toEqual([
      { model: 'claude-sonnet-4', steps: 5, cost: 1.75 },
      { model: 'gpt-4.1', steps: 4, cost: 0.5 },
    ]);
  });

  it('completes column names of the tables the query reads, and after table.', async () => {
    await setSql(' FROM tool_calls');
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('SELECT dur');
    const popup = page.locator('.cm-tooltip-autocomplete');
    await expect.poll(() => popup.innerText()).toContain('duration_ms');
    expect(await popup.locator('li[aria-selected]').innerText()).toMatch(/^duration_ms/);
    // The popup takes Enter once it has been open a moment (CodeMirror's interaction delay).
    await page.waitForTimeout(150);
    await page.keyboard.press('Enter');
    expect(await editorText()).toBe('SELECT duration_ms FROM tool_calls');
    // lang-sql's schema completion: columns after `table.`
    await setSql('SELECT steps.');
    await page.keyboard.type('inp');
    await expect.poll(() => popup.innerText()).toContain('input_tokens');
    await page.keyboard.press('Escape');
  });

  it('inserts names from the schema browser', async () => {
    await setSql('SELECT count() FROM ');
    await page.keyboard.press('End');
    const tree = page.getByTestId('schema-tree');
    await tree.getByRole('button', { name: 'tool_calls', exact: true }).click();
    expect(await editorText()).toBe('SELECT count() FROM tool_calls');
    await tree.getByRole('button', { name: 'Show columns of tool_calls' }).click();
    await expect(tree.getByText('arguments as canonical JSON text', { exact: false }).isVisible()).resolves.toBe(true);
  });

  it('shows an error with its message and position', async () => {
    await setSql('SELECT nosuchcolumn FROM steps');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const error = page.getByTestId('sql-error');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/Query failed[\s\S]*nosuchcolumn/);

    await setSql('SELECT model,\ncount( FROM steps');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => error.innerText()).toMatch(/at line 2, column \d+/);
    expect(await error.innerText()).toMatch(/Syntax error/);
    expect(await error.innerText()).not.toContain('FORMAT JSONCompact');
    // The editor marks where the error points.
    await page.locator('.cm-sql-error').waitFor();

    await setSql('DROP TABLE steps');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => error.innerText()).toMatch(/Query refused[\s\S]*only SELECT/);
  });

  it('saves a query for the project and opens it again', async () => {
    await setSql("SELECT tool, countIf(status = 'error') AS errors FROM tool_calls FINAL GROUP BY tool ORDER BY tool");
    await page.getByLabel('Query name').fill('Errors per tool');
    await page.getByRole('button', { name: 'Save query' }).click();
    const saved = page.getByTestId('saved-queries');
    await saved.getByRole('button', { name: 'Errors per tool', exact: true }).waitFor();
    await setSql('SELECT 1');
    await saved.getByRole('button', { name: 'Errors per tool', exact: true }).click();
    await expect.poll(editorText).toContain("countIf(status = 'error')");
    const rows = page.getByTestId('sql-result-table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect((await rows.nth(1).innerText()).replace(/\s+/g, ' ').trim()).toBe('2 str_replace_editor 1');
    expect(pageErrors).toEqual([]);
  });
});
