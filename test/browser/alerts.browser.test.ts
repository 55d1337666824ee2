// Drives the Alerts page in headless Chromium against the real server (embedded storage) and a
// real webhook receiver on 127.0.0.1: creates a rule with a webhook, sends a test and sees it
// delivered (signed), disables, edits (the secret is kept) and deletes the rule.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { verifySignature } from '../../analytics/alerts/payload.js';
import { repoPath } from '../../schemas/paths.js';
import { removeDataDir, startTestServer, type TestServer } from '../helpers/test-server.js';
import { startReceiver, type Receiver } from '../alerts/webhook-receiver.js';

let server: TestServer;
let receiver: Receiver;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const SECRET = 'browser-secret-1';

beforeAll(async () => {
  if (!existsSync(repoPath('dist', 'web', 'index.html'))) {
    const { build } = await import('vite');
    await build({ configFile: repoPath('vite.config.ts'), logLevel: 'warn' });
  }
  receiver = await startReceiver();
  server = await startTestServer({ TRAJSCOPE_WEBHOOK_ALLOW: '127.0.0.1/32', TRAJSCOPE_LOG_LEVEL: 'warn' });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('dialog', (d) => void d.accept());
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await receiver?.close();
  if (server) removeDataDir(server.dataDir);
});

const rules = async () => ((await (await fetch(`${server.url}/api/v1/alerts/rules`)).json()) as { rules: any[] }).rules;

describe('Alerts page', () => {
  it('creates a rule, sends a signed test, disables, edits and deletes it', async () => {
    await page.goto(`${server.url}/alerts`);
    await page.getByText('No alert rules yet').waitFor();

    await page.getByRole('button', { name: 'New rule' }).click();
    const editor = page.getByRole('region', { name: 'New rule' });
    await editor.getByLabel('Name').fill('Loops in p1');
    await editor.getByLabel('Kind').selectOption('dead_loop');
    await editor.getByLabel('Severity').selectOption('critical');
    await editor.getByLabel('Project').fill('p1');
    // Without a URL and secret the form says what is missing.
    await editor.getByRole('button', { name: 'Create rule' }).click();
    await expect.poll(() => editor.getByRole('alert').innerText()).toContain('Webhook 1: the URL is required.');
    await editor.getByLabel('URL').fill(receiver.url);
    await editor.getByLabel('Signing secret').fill(SECRET);
    await editor.getByRole('button', { name: 'Create rule' }).click();

    const row = page.getByTestId('alert-rules').locator('tbody tr', { hasText: 'Loops in p1' });
    await row.waitFor();
    expect(await row.innerText()).toContain('project p1');
    const [rule] = await rules();
    expect(rule).toMatchObject({ name: 'Loops in p1', kind: 'dead_loop', severity: 'critical', filters: { project: ['p1'] }, webhooks: [{ has_secret: true }] });

    await row.getByRole('button', { name: 'Send test' }).click();
    const [got] = await receiver.waitFor(1);
    expect(got.body).toMatchObject({ type: 'alert.test', rule: { id: rule.id } });
    expect(verifySignature(SECRET, got.raw, got.headers['x-trajscope-timestamp'] as string, got.headers['x-trajscope-signature'] as string, Math.floor(Date.now() / 1000))).toBe(true);
    // The firing and its delivery show up (the page refreshes every 5 s).
    await page.getByTestId('alert-firings').getByText('test of the alert rule "Loops in p1"').waitFor({ timeout: 15_000 });
    const delivery = page.getByTestId('alert-deliveries').locator('tbody tr').first();
    await expect.poll(() => delivery.innerText(), { timeout: 15_000 }).toContain('delivered');
    await delivery.click();
    await expect.poll(() => page.locator('.alert-attempts').innerText()).toMatch(/1\s+.*delivered\s+200/s);

    await row.getByRole('checkbox').click();
    await expect.poll(async () => (await rules())[0].enabled).toBe(false);
    // The page shows it too (the editor starts from what the page shows).
    await expect.poll(() => row.getByRole('checkbox').isChecked()).toBe(false);

    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('region', { name: 'Edit rule' });
    expect(await edit.getByLabel('Signing secret').getAttribute('placeholder')).toBe('set (leave empty to keep)');
    await edit.getByLabel('Name').fill('Loops in p1 and p2');
    await edit.getByLabel('Project').fill('p1, p2');
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await page.getByTestId('alert-rules').getByText('Loops in p1 and p2').waitFor();
    expect((await rules())[0]).toMatchObject({ name: 'Loops in p1 and p2', enabled: false, filters: { project: ['p1', 'p2'] }, webhooks: [{ has_secret: true }] });

    await page.getByTestId('alert-rules').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No alert rules yet').waitFor();
    expect(await rules()).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
