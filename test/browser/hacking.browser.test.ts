// Reward-hacking evidence in headless Chromium against the real server: the Tasks & environments
// card (per environment, then per task) as GET /api/v1/hacking counts it, and a run's findings
// naming the kind, the step (a link to it) and the text that matched.
import { describe, expect, it } from 'vitest';
import { taskRuns } from '../helpers/task-runs.js';
import { dashboardForFile } from './start-server.js';

const run = taskRuns();

const file = dashboardForFile({
  viewport: { width: 1440, height: 900 },
  async fill(server) {
    await server.ingest([
      ...run('a1', 'task-1', 'env-a', 'success', ['ls', 'git log --oneline --all', 'pytest -q']),
      ...run('a2', 'task-1', 'env-a', 'success', ['rm tests/test_slow.py', 'pytest -q']),
      ...run('a3', 'task-2', 'env-a', 'failure', ['pytest -q']),
      ...run('b1', 'task-3', 'env-b', 'success', ['pytest -q']),
    ]);
    for (let i = 0; i < 150; i++) {
      if ((await server.api('/api/v1/hacking?by=environment')).with_evidence === 2) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the runs were not analysed in time');
  },
});

const squash = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim();

describe('reward-hacking evidence on the dashboard', () => {
  it('shows per environment and per task what the API counts', async () => {
    const { page } = file;
    await page.goto(`${file.server.url}/rl/tasks`);
    const table = page.getByTestId('rl-hacking-table');
    await table.locator('tr[data-key="env-a"]').waitFor();
    const envA = table.locator('tr[data-key="env-a"]');
    expect(squash(await envA.locator('td[data-col="evidence"]').textContent())).toBe('2 · 67%');
    expect(await envA.locator('.badge-hacking').allTextContents()).toEqual(['git_history 1', 'test_removed 1']);
    expect(squash(await envA.locator('td[data-col="success_with"]').textContent())).toBe('100%');
    expect(squash(await envA.locator('td[data-col="success_without"]').textContent())).toBe('0%');
    await page.getByRole('button', { name: 'per task' }).click();
    await table.locator('tr[data-key="task-1"]').waitFor();
    expect(squash(await table.locator('tr[data-key="task-1"] td[data-col="evidence"]').textContent())).toBe('2 · 100%');
    expect(file.errors).toEqual([]);
  });

  it("names the kind, the step and the text on the run's page", async () => {
    const { page } = file;
    await page.goto(`${file.server.url}/runs/a1`);
    const finding = page.getByTestId('hacking-evidence');
    await finding.waitFor();
    expect(squash(await finding.locator('.finding-label').textContent())).toBe('Hacking evidence');
    expect(squash(await finding.locator('li').textContent())).toBe('git_history #2 git log --oneline --all');
    await finding.getByRole('link', { name: '#2' }).click();
    await page.waitForURL(/\/runs\/a1\?.*step=1/);
  });
});
