// The run page's compact view in headless Chromium against the real server: a long looping run
// opens compact with one line per step and its loop folded into one "× N" line that unfolds; a
// line opens into the step's card; a tool call repeating its step's texts is shown once; steps are
// numbered from 1 while ?step= keeps the stored index; the Compact/Full toggle lives in the URL.
// Screenshots of a looping run and of a 1,000-step run go to /tmp/compact-shots.
import { mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { longRunEvents, postInChunks, waitForApi } from './long-run.js';
import { dashboardForFile } from './start-server.js';

const LOOPY = 'cv-loopy';
const LOOPY_STEPS = 300;
/** Where long-run.ts puts the loop of a run this short: 12 repeated steps, 17 before the end. */
const LOOP_FIRST = LOOPY_STEPS - 12 - 5;
const LOOP_LAST = LOOP_FIRST + 11;
const THOUSAND = 'cv-thousand';
const SHORT = 'cv-short';
const SHOTS = '/tmp/compact-shots';


const file = dashboardForFile({
  viewport: { width: 1280, height: 900 },
  timeoutMs: 180_000,
  async fill(server) {
    const now = new Date();
    await postInChunks(server.url, [...longRunEvents(LOOPY, LOOPY_STEPS, now), ...longRunEvents(THOUSAND, 1000, now), ...longRunEvents(SHORT, 5, now)]);
    await waitForApi(server.url, `/api/v1/runs/${LOOPY}`, (b) => b.run.steps === LOOPY_STEPS && (b.analysis?.loops.length ?? 0) > 0);
    await waitForApi(server.url, `/api/v1/runs/${THOUSAND}`, (b) => b.run.steps === 1000 && (b.analysis?.loops.length ?? 0) > 0);
    await waitForApi(server.url, `/api/v1/runs/${SHORT}`, (b) => b.run.steps === 5);
  },
});

const line = (step: number) => file.page.locator(`.compact-slot[data-step="${step}"] > [data-testid="compact-line"]`);

describe('the compact view of a run', () => {
  it('opens a long run compact: one line per step, its loop folded into one "× N" line', async () => {
    const { page, server } = file;
    const loops = (await file.api(`/api/v1/runs/${LOOPY}`)).analysis.loops;
    expect(loops[0]).toMatchObject({ first_step: LOOP_FIRST, last_step: LOOP_LAST });
    await page.goto(`${server.url}/runs/${LOOPY}`);
    await page.locator('.steps-compact').waitFor();
    expect(await page.getByRole('button', { name: 'Compact' }).getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('.step-card').count()).toBe(0);

    // The first line: number from 1, tool, key argument (the file), outcome, figures.
    const first = line(0);
    await expect.poll(() => first.locator('.compact-what').innerText()).toBe('packages/pkg_0/src/file_0.ts');
    expect(await first.locator('.compact-num').innerText()).toBe('1');
    expect(await first.locator('.compact-tool').innerText()).toBe('str_replace_editor');
    expect(await first.locator('.compact-outcome').innerText()).toBe('ok');
    const idx = await file.api(`/api/v1/runs/${LOOPY}/steps/index`);
    expect(idx.tools[0]).toBe('');
    expect(idx.tools[idx.tool[0]]).toBe('str_replace_editor');
    expect(idx.tools[idx.tool[LOOP_FIRST]]).toBe('bash');
    // One line per step, the loop's 12 steps as one: the list is that many lines tall.
    const lineHeight = await first.evaluate((el) => el.parentElement!.parentElement!.getBoundingClientRect().height);
    const listHeight = await page.locator('.step-list-virtual').evaluate((el) => el.getBoundingClientRect().height);
    expect(Math.round(listHeight / lineHeight)).toBe(LOOPY_STEPS - 12 + 1);

    // A failing step names its error type (96 lines further down).
    await page.evaluate((by) => window.scrollBy(0, by), 96 * lineHeight);
    await expect.poll(() => line(96).locator('.compact-outcome').innerText()).toBe('ToolError');

    // The loop: one line "× 12" with the summed figures, folded; opening it lists its steps.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const loop = page.getByTestId('compact-loop');
    await loop.waitFor();
    const text = (await loop.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('× 12');
    expect(text).toContain(`steps ${LOOP_FIRST + 1}–${LOOP_LAST + 1}`);
    expect(text).toContain('12 failed');
    expect(await page.locator(`.compact-slot[data-step="${LOOP_FIRST + 3}"]`).count()).toBe(0);
    await loop.click();
    await line(LOOP_FIRST + 3).waitFor();
    expect(await line(LOOP_FIRST + 3).locator('.compact-tool').innerText()).toBe('bash');
    expect(await line(LOOP_FIRST + 3).locator('.badge-loop').innerText()).toBe('loop 1');
    expect(await page.locator('[data-testid="compact-line"].compact-in-loop').count()).toBe(12);
    mkdirSync(SHOTS, { recursive: true });
    // The loop's line near the top of the screen, its steps under it.
    const showLoop = () => loop.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 240));
    await showLoop();
    await line(LOOP_LAST).waitFor();
    await page.screenshot({ path: `${SHOTS}/compact-loop-open.png` });
    // Enter on the loop's line folds it again.
    await loop.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('[data-testid="compact-line"].compact-in-loop').count()).toBe(0);
    await showLoop();
    await page.screenshot({ path: `${SHOTS}/compact-loop-folded.png` });
    expect(file.errors).toEqual([]);
  });

  it('opens a line into the full step, with a tool call repeating its texts shown once', async () => {
    const { page, server } = file;
    await page.goto(`${server.url}/runs/${LOOPY}`);
    const first = line(0);
    await first.waitFor();
    await first.click();
    const card = page.locator('#step-0');
    await card.locator('.step-part').first().waitFor();
    expect(await first.getAttribute('aria-expanded')).toBe('true');
    const cardText = await card.innerText();
    expect(cardText).toContain('#1');
    // The observation and the call's output are the same text: shown once.
    const observation = 'step 0: read packages/pkg_0/src/file_0.ts (120 lines); next: update its imports';
    expect(cardText.split(observation).length - 1).toBe(1);
    expect(await card.getByTestId('call-same').innerText()).toBe('output as the observation above');
    // The arguments differ from the action: shown.
    expect(await card.locator('.tool-call').innerText()).toContain('"old_str": "import a0"');
    // Enter closes it again.
    await first.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#step-0 .step-part').count()).toBe(0);
    expect(await first.getAttribute('aria-expanded')).toBe('false');

    // A loop step: the call's arguments are inside the action, its output is the observation.
    await page.goto(`${server.url}/runs/${LOOPY}?step=${LOOP_FIRST + 2}`);
    const looped = page.locator(`#step-${LOOP_FIRST + 2}`);
    await looped.locator('.step-part').first().waitFor();
    expect(await looped.getByTestId('call-same').innerText()).toBe('arguments as the action, output as the observation above');
    expect(await looped.locator('.tool-call').innerText()).not.toContain('make build');
    expect((await looped.innerText()).split('make build').length - 1).toBe(1);
    expect(file.errors).toEqual([]);
  });

  it('numbers steps from 1 while ?step= keeps the stored index', async () => {
    const { page, server } = file;
    await page.goto(`${server.url}/runs/${LOOPY}?step=0`);
    const card = page.locator('#step-0');
    await card.locator('.step-part').first().waitFor();
    await expect.poll(() => card.getAttribute('class')).toContain('step-highlight');
    expect(await card.locator('.step-index').innerText()).toBe('#1');
    expect(page.url()).toContain('step=0');
    // A step inside the folded loop: the loop unfolds, the step opens.
    await page.goto(`${server.url}/runs/${LOOPY}?step=${LOOP_LAST}`);
    const last = page.locator(`#step-${LOOP_LAST}`);
    await last.locator('.step-part').first().waitFor();
    expect(await last.locator('.step-index').innerText()).toBe(`#${LOOP_LAST + 1}`);
    // The findings count from 1 too, and link to the stored index.
    const ending = page.locator('#run-ending a').first();
    expect(await ending.innerText()).toBe(`#${LOOPY_STEPS}`);
    expect(await ending.getAttribute('href')).toContain(`step=${LOOPY_STEPS - 1}`);
    // The line numbered 5 links to the stored step 4; the Go to box takes the shown number.
    await page.goto(`${server.url}/runs/${LOOPY}`);
    await line(4).locator('.compact-num').click();
    await page.waitForURL(/step=4(&|$)/);
    await page.getByLabel('Go to step').fill('10');
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await page.waitForURL(/step=9(&|$)/);
    await page.locator('#step-9 .step-part').first().waitFor();
    expect(await page.locator('#step-9 .step-index').innerText()).toBe('#10');
    expect(file.errors).toEqual([]);
  });

  it('keeps Compact / Full in the URL; a short run opens full', async () => {
    const { page, server } = file;
    await page.goto(`${server.url}/runs/${LOOPY}?step=3`);
    await page.locator('#step-3 .step-part').first().waitFor();
    await page.getByRole('button', { name: 'Full' }).click();
    await page.waitForURL(/view=full/);
    expect(page.url()).toContain('step=3');
    await page.locator('.step-card').first().waitFor();
    expect(await page.locator('[data-testid="compact-line"]').count()).toBe(0);
    // A link keeps the view.
    await page.reload();
    await page.locator('.step-card .step-part').first().waitFor();
    expect(await page.getByRole('button', { name: 'Full' }).getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('.steps-compact').count()).toBe(0);
    await page.getByRole('button', { name: 'Compact' }).click();
    await page.waitForURL(/view=compact/);
    await page.locator('[data-testid="compact-line"]').first().waitFor();

    await page.goto(`${server.url}/runs/${SHORT}`);
    await expect.poll(() => page.locator('.step-card').count()).toBe(5);
    expect(await page.getByRole('button', { name: 'Full' }).getAttribute('aria-pressed')).toBe('true');
    // Asked for, a short run is compact too (its five steps are one repeat loop: one line).
    await page.goto(`${server.url}/runs/${SHORT}?view=compact`);
    await expect.poll(() => page.getByTestId('compact-loop').innerText()).toContain('steps 1–5');
    expect(await page.locator('.step-card').count()).toBe(0);
    expect(file.errors).toEqual([]);
  });

  it('shows a 1,000-step run compact', async () => {
    const { page, server } = file;
    await page.goto(`${server.url}/runs/${THOUSAND}`);
    await expect.poll(() => line(0).locator('.compact-what').innerText()).toBe('packages/pkg_0/src/file_0.ts');
    // Only the lines on screen are in the page.
    expect(await page.locator('[data-testid="compact-line"]').count()).toBeLessThan(80);
    await page.screenshot({ path: `${SHOTS}/compact-1000-top.png`, fullPage: false });
    await page.goto(`${server.url}/runs/${THOUSAND}?step=500`);
    await page.locator('#step-500 .step-part').first().waitFor();
    await page.evaluate(() => window.scrollBy(0, -300));
    await page.screenshot({ path: `${SHOTS}/compact-1000-step-501.png` });
    expect(file.errors).toEqual([]);
  });
});
