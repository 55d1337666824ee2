// Takes full-page screenshots of the dashboard with headless Chromium, for looking at the UI.
// Usage: npx tsx test/browser/take-screenshots.ts http://127.0.0.1:7300 [out-dir] [path ...]
// (default paths: the overview, the runs table and the first run of the table).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [base = 'http://127.0.0.1:7300', outDir = 'test-output/screenshots', ...paths] = process.argv.slice(2);

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  await mkdir(outDir, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') console.log(`[browser ${m.type()}] ${m.text()}`);
  });
  page.on('pageerror', (e) => console.log(`[page error] ${e.message}`));
  let targets = paths;
  if (targets.length === 0) {
    await page.goto(`${base}/runs`);
    await page.waitForSelector('tr[data-run-id], .state-empty, .state-error');
    const first = await page.getAttribute('tr[data-run-id]', 'data-run-id').catch(() => null);
    targets = ['/', '/runs', ...(first ? [`/runs/${encodeURIComponent(first)}`] : [])];
  }
  for (const [i, path] of targets.entries()) {
    await page.goto(`${base}${path}`);
    await page.waitForLoadState('networkidle');
    // Off-screen step cards skip rendering (content-visibility); a full-page shot needs them drawn.
    await page.addStyleTag({ content: '.step-card { content-visibility: visible !important; }' });
    await page.waitForTimeout(400);
    const name = `${String(i + 1).padStart(2, '0')}-${path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'overview'}.png`;
    await page.screenshot({ path: join(outDir, name), fullPage: true });
    console.log(join(outDir, name));
  }
} finally {
  await browser.close();
}
