// Takes screenshots of every page of the dashboard with headless Chromium, for looking at the
// UI and for docs/screenshots/. Pages are found from the navigation, plus a run page (the first
// run of the table) and, with --long RUN_ID, a long run opened at its first loop.
// Usage: npx tsx test/browser/take-screenshots.ts [base-url] [out-dir] [--long RUN_ID] [--dark]
//   e.g. npx tsx test/browser/take-screenshots.ts http://127.0.0.1:7300 docs/screenshots --long long-run-5000
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const [, v] = args.splice(i, 2);
  return v;
};
const longRun = flag('--long');
const dark = args.includes('--dark') ? (args.splice(args.indexOf('--dark'), 1), true) : false;
const [base = 'http://127.0.0.1:7300', outDir = 'test-output/screenshots'] = args;

/** Waits until the page's data has arrived: no loading state left and the network quiet. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  for (let i = 0; i < 40 && (await page.locator('.state .spinner, [aria-busy="true"]').count()) > 0; i++) await page.waitForTimeout(250);
  await page.waitForTimeout(300);
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  await mkdir(outDir, { recursive: true });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: dark ? 'dark' : 'light' });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') console.log(`[browser ${m.type()}] ${m.text()}`);
  });
  page.on('pageerror', (e) => console.log(`[page error] ${e.message}`));

  // The run page shows a failed run (more to see: failure mode, errors), else the latest run.
  await page.goto(`${base}/runs?status=failure`);
  await page.waitForSelector('tr[data-run-id], .state-empty, .state-error');
  let firstRun = await page.getAttribute('tr[data-run-id]', 'data-run-id').catch(() => null);
  if (!firstRun) {
    await page.goto(`${base}/runs`);
    await page.waitForSelector('tr[data-run-id], .state-empty, .state-error');
    firstRun = await page.getAttribute('tr[data-run-id]', 'data-run-id').catch(() => null);
  }
  const navPaths = await page.$$eval('nav a[href]', (as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
  const shots: Array<{ name: string; path: string; fullPage: boolean }> = [];
  for (const p of [...new Set(navPaths)]) {
    const name = p === '/' ? 'overview' : p.replace(/^\//, '').replace(/[^a-z0-9]+/gi, '-');
    shots.push({ name, path: p, fullPage: true });
    // Run pages are virtualised lists: a tall viewport, not the (estimated) full page.
    if (p === '/runs' && firstRun) shots.push({ name: 'run', path: `/runs/${encodeURIComponent(firstRun)}`, fullPage: false });
  }
  if (longRun) {
    shots.push({ name: 'run-5000-steps', path: `/runs/${encodeURIComponent(longRun)}`, fullPage: false });
    const detail = (await (await fetch(`${base}/api/v1/runs/${encodeURIComponent(longRun)}`)).json()) as { analysis?: { loops: { first_step: number }[] } };
    const loop = detail.analysis?.loops[0];
    if (loop) shots.push({ name: 'run-5000-steps-loop', path: `/runs/${encodeURIComponent(longRun)}?step=${loop.first_step}`, fullPage: false });
  }
  for (const s of shots) {
    await page.setViewportSize({ width: 1400, height: s.fullPage ? 900 : 1600 });
    await page.goto(`${base}${s.path}`);
    await settle(page);
    const file = join(outDir, `${s.name}${dark ? '-dark' : ''}.png`);
    await page.screenshot({ path: file, fullPage: s.fullPage });
    console.log(file);
  }
} finally {
  await browser.close();
}
