// A run of 100,000 steps and 200,000 tool calls in headless Chromium against the real server:
// stored and analysed (its failure mode and loop on its page), opened compact with its chart
// binned, a link to step 87,654 opening that step, "errors only", "loops only", find in this run,
// and the chart zoomed by a drag down to single steps; step texts only ever fetched in windows.
import { describe, expect, it } from 'vitest';
import { isLongRunErrorStep, LONG_RUN_LOOP_LENGTH, LONG_RUN_LOOP_START, longRunEvents, postInChunks, waitForApi } from './long-run.js';
import { dashboardForFile } from './start-server.js';

const RUN = 'huge-run';
const STEPS = 100_000;
const JUMP = 87_654;


const file = dashboardForFile({
  viewport: { width: 1280, height: 900 },
  timeoutMs: 300_000,
  async fill(server) {
    await postInChunks(server.url, longRunEvents(RUN, STEPS, new Date(), 'default', 2), 10_000);
    await waitForApi(server.url, `/api/v1/runs/${RUN}?steps_limit=1`, (b) => b.run.steps === STEPS && b.run.tool_calls === 2 * STEPS && (b.analysis?.loops.length ?? 0) > 0, 600);
  },
});

const line = (step: number) => file.page.locator(`.compact-slot[data-step="${step}"] > [data-testid="compact-line"]`);

describe('a run of 100,000 steps', () => {
  it('is analysed, and opens compact with its failure, its chart in bins and its first steps', async () => {
    const { page, server } = file;
    const detail = await file.api(`/api/v1/runs/${RUN}?steps_limit=1`);
    expect(detail.analysis.failure.mode).not.toBe('');
    expect(detail.analysis.loops[0]).toMatchObject({ first_step: LONG_RUN_LOOP_START, last_step: LONG_RUN_LOOP_START + LONG_RUN_LOOP_LENGTH - 1 });
    const windows: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes(`/runs/${RUN}/steps?`)) windows.push(r.url());
    });
    await page.goto(`${server.url}/runs/${RUN}`);
    await page.locator('.steps-compact').waitFor();
    await expect.poll(async () => (await page.locator('.run-header').innerText()).toLowerCase()).toContain(detail.analysis.failure.mode.replaceAll('_', ' '));
    await expect.poll(() => page.getByTestId('step-chart-scale').innerText()).toContain('100,000 steps, 200 per bar');
    await expect.poll(() => line(0).locator('.compact-what').innerText()).toBe('packages/pkg_0/src/file_0.ts');
    expect(await page.locator('[data-testid="compact-line"]').count()).toBeLessThan(80);
    for (const u of windows) expect(Number(new URL(u).searchParams.get('limit'))).toBeLessThanOrEqual(100);
  });

  it('opens at a step from a link, far down the run', async () => {
    const { page, server } = file;
    await page.goto(`${server.url}/runs/${RUN}?step=${JUMP}`);
    const target = line(JUMP);
    await expect.poll(() => target.locator('.compact-num').innerText(), { timeout: 30_000 }).toBe(String(JUMP + 1));
    await expect.poll(() => target.evaluate((el) => el.getBoundingClientRect().top)).toBeLessThan(300);
  });

  it('shows errors only, loops only, and finds in the run', async () => {
    const { page, server } = file;
    await page.goto(`${server.url}/runs/${RUN}`);
    await page.locator('.steps-compact').waitFor();
    await page.getByLabel('errors only').check();
    // The first failing step (every 97th) is the first line.
    const firstError = Array.from({ length: 200 }, (_, s) => s).find(isLongRunErrorStep)!;
    await expect.poll(() => page.locator('[data-testid="compact-line"] .compact-num').first().innerText()).toBe(String(firstError + 1));
    await page.getByLabel('errors only').uncheck();
    await page.getByLabel('loops only').check();
    await expect.poll(() => page.getByTestId('loop-times').first().innerText()).toContain(`× ${LONG_RUN_LOOP_LENGTH}`);
    await page.getByLabel('loops only').uncheck();

    const find = page.getByRole('searchbox', { name: 'Find in this run' });
    await find.fill('missing key');
    await find.press('Enter');
    await expect.poll(() => page.getByTestId('find-status').textContent(), { timeout: 30_000 }).toMatch(/^1 of \d+ steps/);
    await page.waitForURL(new RegExp(`step=${LONG_RUN_LOOP_START}(&|$)`));
  });

  it('zooms its chart by a drag, down to single steps, and back', async () => {
    const { page, server } = file;
    await page.goto(`${server.url}/runs/${RUN}`);
    const bars = page.locator('.step-chart .recharts-bar-rectangle');
    await bars.first().waitFor();
    const scale = page.getByTestId('step-chart-scale');
    const box = (await page.locator('.step-chart .recharts-cartesian-grid').boundingBox())!;
    const drag = async (fromX: number, toX: number) => {
      await page.mouse.move(box.x + fromX, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + (fromX + toX) / 2, box.y + box.height / 2, { steps: 4 });
      await page.mouse.move(box.x + toX, box.y + box.height / 2, { steps: 4 });
      await page.mouse.up();
    };
    await drag(box.width * 0.1, box.width * 0.12);
    await expect.poll(() => scale.innerText()).toMatch(/^Steps [\d,]+–[\d,]+ of 100,000/);
    const zoomed = await scale.innerText();
    // A narrow range of a few thousand steps: bins of a few steps, or single steps.
    await drag(box.width * 0.1, box.width * 0.14);
    await expect.poll(() => scale.innerText()).not.toBe(zoomed);
    expect(await scale.innerText()).not.toContain('per bar');
    await page.getByRole('button', { name: 'Show all steps' }).click();
    await expect.poll(() => scale.innerText()).toContain('100,000 steps, 200 per bar');
    expect(file.errors).toEqual([]);
  });
});
