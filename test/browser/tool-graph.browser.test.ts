// The graph pages in headless Chromium against the real server (docs/graphs.md): the run graph
// draws the run's tools and files without overlap even at 5,000 steps, clicking a node lists its
// steps and a step opens the run there; the Tool paths page switches between successful and
// failing runs and clicking an edge lists example runs. Screenshots to /tmp/graph-shots.
import { mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { dashboardForFile } from './start-server.js';

const SHOTS = '/tmp/graph-shots';
const NOW = Date.now();
const at = (ms: number) => new Date(NOW - 3_600_000 + ms).toISOString();
type Call = { tool: string; args: Record<string, unknown>; error?: boolean };

function run(id: string, start: number, calls: Call[], status: string): object[] {
  const events: object[] = [{ type: 'run_start', run_id: id, ts: at(start), model: 'm-1', agent: { name: 'a' } }];
  calls.forEach((c, i) => {
    const ts = at(start + i * 10 + 1);
    events.push({ type: 'step', run_id: id, step: i, ts, cost_usd: 0.002, input_tokens: 500, output_tokens: 40, action: c.tool, observation: 'ok' });
    events.push({
      type: 'tool_call', run_id: id, step: i, call_id: `${id}-${i}`, ts, tool: c.tool, arguments: c.args, status: c.error ? 'error' : 'ok', duration_ms: 40,
      output: 'done', ...(c.error ? { error: { type: 'ExitCode', message: 'exit code 1' } } : {}),
    });
  });
  events.push({ type: 'run_end', run_id: id, ts: at(start + calls.length * 10 + 5), status });
  return events;
}

const view = (f: string): Call => ({ tool: 'view', args: { path: f } });
const edit = (f: string): Call => ({ tool: 'str_replace_editor', args: { path: f, old_str: 'a', new_str: 'b' } });
const bash = (cmd: string, error = false): Call => ({ tool: 'bash', args: { command: cmd }, error });

/** A looping run: the tests fail, the agent reruns them 14 more times, then gives up. */
const LOOP = [view('src/app.py'), edit('src/app.py'), ...Array.from({ length: 15 }, () => bash('pytest -x', true)), edit('src/app.py')];

/** A 5,000-step run over 12 tools and 10 files, the next tool drawn from a fixed pseudo-random walk. */
function wideRun(): Call[] {
  const tools = ['view', 'str_replace_editor', 'bash', 'grep', 'find', 'python', 'git_diff', 'run_tests', 'web_search', 'think', 'submit_patch', 'lint'];
  const files = Array.from({ length: 10 }, (_, i) => `pkg/module_${i}/core.py`);
  let x = 12345;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  let t = 0;
  return Array.from({ length: 5000 }, () => {
    // Mostly the usual cycle view → edit → bash, sometimes anything.
    t = next() < 0.7 ? (t + 1) % 3 : Math.floor(next() * tools.length);
    const tool = tools[t];
    const file = files[Math.floor(next() * next() * files.length)];
    if (tool === 'view' || tool === 'str_replace_editor' || tool === 'lint') return { tool, args: { path: file } };
    return { tool, args: { command: `${tool} ${Math.floor(next() * 1000)}` }, error: next() < 0.1 };
  });
}

const file = dashboardForFile({
  viewport: { width: 1440, height: 1000 },
  timeoutMs: 180_000,
  async fill(server) {
    const events = [
      ...run('loop-run', 0, LOOP, 'failure'),
      ...run('wide-run', 1000, wideRun(), 'success'),
      ...[1, 2, 3].flatMap((i) => run(`ok-${i}`, 100_000 + i * 1000, [view('a.py'), edit('a.py'), bash('pytest')], 'success')),
      ...[1, 2].flatMap((i) => run(`bad-${i}`, 200_000 + i * 1000, [view('a.py'), bash('pytest', true), bash('pytest', true)], 'failure')),
    ];
    for (let i = 0; i < events.length; i += 4000) {
      const { rejected } = await server.ingest(events.slice(i, i + 4000));
      if (rejected.length) throw new Error(`rejected: ${JSON.stringify(rejected.slice(0, 2))}`);
    }
    for (let i = 0; i < 150; i++) {
      const g = await server.api('/api/v1/runs/wide-run/graph').catch(() => null);
      const c = await server.api('/api/v1/graph').catch(() => null);
      if (g?.tool_calls === 5000 && g.outcome === 'success' && c?.runs?.all === 7) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('the runs were not stored in time');
  },
});

/** The boxes of the drawn nodes, by id. */
async function nodeBoxes(page: Page): Promise<Map<string, { x: number; y: number; width: number; height: number }>> {
  const out = new Map();
  for (const n of await page.locator('.react-flow__node').all()) out.set(await n.getAttribute('data-id'), await n.boundingBox());
  return out;
}

function overlaps(a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('the run graph page', () => {
  it('draws a looping run, lists a node\'s steps and opens the run at one', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const api = await file.api('/api/v1/runs/loop-run/graph');
    const { page } = file;
    // From the run page's header.
    await page.goto(`${file.server.url}/runs/loop-run`);
    await page.getByRole('link', { name: 'Graph of the run' }).click();
    await page.waitForURL(/\/runs\/loop-run\/graph\?project=default$/);
    await page.locator('.react-flow__node[data-id="tool:bash"]').waitFor();
    expect((await nodeBoxes(page)).size).toBe(api.nodes.length);
    expect(await page.locator('.react-flow__node[data-id="end"]').textContent()).toContain('failure');
    // The loop: 14 repetitions of bash, drawn as a self-edge with its label.
    const loop = page.locator('.graph-edge-label[data-edge-id="tool:bash->tool:bash"]');
    expect(await loop.textContent()).toBe("↻ ×14 · $0.028");
    await page.screenshot({ path: `${SHOTS}/run-graph-loop.png` });

    await page.locator('.react-flow__node[data-id="tool:bash"]').click();
    const panel = page.getByRole('complementary', { name: 'Selection' });
    await panel.getByRole('heading', { name: 'bash' }).waitFor();
    const steps = panel.getByRole('list', { name: 'Steps' }).getByRole('link');
    expect(await steps.allTextContents()).toEqual(Array.from({ length: 15 }, (_, i) => String(i + 2)));

    // The loop edge lists the 14 steps it led to.
    await loop.click();
    await panel.getByRole('heading', { name: 'bash ↻' }).waitFor();
    expect(await panel.getByRole('list', { name: 'Steps' }).getByRole('link').count()).toBe(14);

    await panel.getByRole('list', { name: 'Steps' }).getByRole('link', { name: '9', exact: true }).click();
    await page.waitForURL(/\/runs\/loop-run\?.*step=9/);
    await page.locator('.run-header').waitFor();
    expect(file.errors).toEqual([]);
  });

  it('keeps a 5,000-step run readable: capped nodes, none overlapping, rare edges hidden', async () => {
    const api = await file.api('/api/v1/runs/wide-run/graph');
    expect(api.steps).toBe(5000);
    const { page } = file;
    await page.goto(`${file.server.url}/runs/wide-run/graph`);
    await page.locator('.react-flow__node[data-id="start"]').waitFor();
    const boxes = await nodeBoxes(page);
    expect(boxes.size).toBe(api.nodes.length);
    expect(boxes.size).toBeLessThanOrEqual(2 + 12 + 8 + 12 + 1);
    const list = [...boxes.values()];
    for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) expect(overlaps(list[i], list[j])).toBe(false);
    const frame = page.getByRole('figure', { name: 'Run graph' });
    const shown = Number(await frame.getAttribute('data-edges-shown'));
    expect(shown).toBeLessThanOrEqual(45 + 2);
    expect(Number(await frame.getAttribute('data-edges-hidden'))).toBe(api.edges.length - shown);
    await page.screenshot({ path: `${SHOTS}/run-graph-5000.png` });
    expect(file.errors).toEqual([]);
  });
});

describe('the Tool paths page', () => {
  it('switches between successful and failing runs and lists the runs of an edge', async () => {
    const { page } = file;
    await page.goto(`${file.server.url}/paths`);
    await page.locator('.react-flow__node[data-id="tool:bash"]').waitFor();
    await page.getByRole('button', { name: /^Failing runs \(3\)$/ }).click();
    await page.getByRole('figure', { name: 'Tool paths of failing runs' }).waitFor();
    // Only the failing runs' end is drawn.
    expect(await page.locator('.react-flow__node[data-id="end:success"]').count()).toBe(0);
    expect(await page.locator('.react-flow__node[data-id="end:failure"]').count()).toBe(1);
    const edge = page.locator('.graph-edge-label[data-edge-id="tool:view->tool:bash"]');
    // P(bash | view) among failing runs: bad-1 and bad-2 of the three.
    expect(await edge.textContent()).toBe('67%');
    await page.getByRole('button', { name: /^Successful runs/ }).click();
    await page.getByRole('figure', { name: 'Tool paths of successful runs' }).waitFor();
    expect(await page.locator('.react-flow__node[data-id="end:failure"]').count()).toBe(0);
    await page.getByRole('button', { name: /^All runs/ }).click();
    await page.screenshot({ path: `${SHOTS}/paths-fixture.png` });

    await page.locator('.graph-edge-label[data-edge-id="tool:view->tool:bash"]').click();
    const panel = page.getByRole('complementary', { name: 'Selection' });
    await panel.getByRole('heading', { name: 'view → bash' }).waitFor();
    const runs = panel.getByRole('list', { name: 'Example runs' }).getByRole('link');
    const api = (await file.api('/api/v1/graph')).edges.find((e: { id: string }) => e.id === 'tool:view->tool:bash');
    // Failing runs first, then successful ones, as the API lists them.
    expect(await runs.allTextContents()).toEqual(api.examples.map((x: { run_id: string }) => x.run_id));
    expect((await runs.allTextContents()).slice(0, 2)).toEqual(['bad-1', 'bad-2']);
    expect(await panel.textContent()).toContain(`${Math.round(api.failure_share * 1000) / 10}% of the runs that took it`);
    await runs.first().click();
    await page.waitForURL(/\/runs\/bad-1\?.*step=1/);
    await page.locator('.run-header').waitFor();
    expect(file.errors).toEqual([]);
  });
});
