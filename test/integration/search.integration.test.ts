// GET /api/v1/search over hand-made runs in two projects: each mode and field, the tool
// restriction, the project filter, paging and the totals, counted by hand.
import { describe, expect, it } from 'vitest';
import { getJson, serverForFile } from '../helpers/test-server.js';

const HOUR = 3_600_000;
const NOW = Date.now();
const at = (h: number, s = 0) => new Date(NOW - h * HOUR + s * 1000).toISOString();
const start = (project: string, run_id: string, h: number, task: string) => ({ type: 'run_start', project, run_id, ts: at(h), model: 'm-1', task: { id: task } });
const step = (project: string, run_id: string, h: number, n: number, action: string, observation: string, error?: string) => ({
  type: 'step', project, run_id, step: n, ts: at(h, n + 1), model: 'm-1', input_tokens: 10, output_tokens: 5, action, observation,
  ...(error ? { error: { type: 'ToolError', message: error } } : {}),
});
const call = (project: string, run_id: string, h: number, n: number, call_id: string, tool: string, args: object, output: string, error?: string) => ({
  type: 'tool_call', project, run_id, step: n, call_id, ts: at(h, n + 1), tool, arguments: args, status: error ? 'error' : 'ok', output,
  ...(error ? { error: { type: 'ExitCode', message: error } } : {}),
});

// Start times: a1 oldest … b1 newest.
const events = [
  start('alpha', 'a1', 10, 'task-a1'),
  step('alpha', 'a1', 10, 0, 'open file', 'The Zebra crossed the road'),
  step('alpha', 'a1', 10, 1, 'run tests', 'all ok'),
  call('alpha', 'a1', 10, 0, 'c-a1-0', 'bash', { cmd: 'ls /tmp' }, 'README.md main.py'),
  { type: 'run_end', project: 'alpha', run_id: 'a1', ts: at(9), status: 'success' },
  start('alpha', 'a2', 8, 'task-a2'),
  step('alpha', 'a2', 8, 0, 'read config', 'Connection Refused by host'),
  step('alpha', 'a2', 8, 1, 'retry', 'waiting', 'Timeout waiting for lock'),
  call('alpha', 'a2', 8, 1, 'c-a2-1', 'http', { url: 'http://example.test' }, 'HTTP 500', 'Gateway Timeout'),
  start('alpha', 'a3', 6, 'task-a3'),
  step('alpha', 'a3', 6, 0, 'grep TODO', 'TODO: fix parser'),
  call('alpha', 'a3', 6, 0, 'c-a3-0', 'bash', { cmd: 'cat notes' }, 'todo list'),
  start('alpha', 'a4', 4, 'task-a4'),
  ...[0, 1, 2, 3, 4, 5, 6].map((n) => step('alpha', 'a4', 4, n, `repeat attempt ${n}`, 'same again')),
  start('alpha', 'a5', 5, 'task-a5'),
  step('alpha', 'a5', 5, 0, 'long', `${'x '.repeat(150)}needle here ${'y '.repeat(150)}`),
  start('beta', 'b1', 2, 'task-b1'),
  step('beta', 'b1', 2, 0, 'grep TODO', 'the zebra too'),
];

const file = serverForFile(events);
const search = (query: string) => file.api(`/api/v1/search?${query}`);
const raw = (query: string) => getJson(file.server.url, `/api/v1/search${query}`);
const ids = (body: any) => body.runs.map((r: any) => r.run_id);

describe('GET /api/v1/search', () => {
  it('finds a word as a whole token, any case, in one run\'s observation only', async () => {
    const body = await search('q=CROSSED');
    expect(body).toMatchObject({ total_runs: 1, total_hits: 1, next_offset: null });
    const [run] = body.runs;
    expect(run).toMatchObject({ run_id: 'a1', project: 'alpha', task_id: 'task-a1', status: 'success', model: 'm-1', hits: 1 });
    expect(run.started_at).toBe(at(10));
    expect(run.matches).toEqual([
      { step: 0, source: 'step', field: 'observation', tool: '', call_id: '', snippet: 'The Zebra crossed the road', highlight: { start: 10, length: 7 }, link: '/runs/a1?step=0' },
    ]);
    expect(body.words).toEqual(['crossed']); // as the engine cut and lower-cased them
    expect((await search('q=cross')).total_runs).toBe(0); // not a whole token
    expect((await search('q=crossed&field=action')).total_runs).toBe(0);
  });

  it('needs every word, and the project filter leaves the other project\'s runs out', async () => {
    const both = await search('q=zebra&field=observation');
    expect(both).toMatchObject({ total_runs: 2, total_hits: 2 });
    expect(ids(both)).toEqual(['b1', 'a1']); // newest run first
    expect(ids(await search('q=zebra&project=alpha'))).toEqual(['a1']);
    expect(ids(await search('q=zebra%20road'))).toEqual(['a1']);
    expect((await search('q=zebra%20unicorn')).total_runs).toBe(0);
  });

  it('finds a phrase, any case', async () => {
    const body = await search('q=connection%20refused&mode=phrase');
    expect(body).toMatchObject({ total_runs: 1, total_hits: 1 });
    expect(body.runs[0].matches[0]).toMatchObject({ step: 0, field: 'observation', snippet: 'Connection Refused by host', highlight: { start: 0, length: 18 } });
    expect((await search('q=refused%20connection&mode=phrase')).total_runs).toBe(0);
  });

  it('finds an exact case-sensitive substring', async () => {
    const upper = await search('q=TODO&mode=substring');
    expect(upper).toMatchObject({ total_runs: 2, total_hits: 2 });
    expect(ids(upper)).toEqual(['b1', 'a3']);
    expect(upper.runs[1].matches).toEqual([expect.objectContaining({ step: 0, source: 'step', field: 'action', link: '/runs/a3?step=0' })]);
    const lower = await search('q=odo%20l&mode=substring');
    expect(lower).toMatchObject({ total_runs: 1, total_hits: 1 });
    expect(lower.runs[0].matches).toEqual([
      { step: 0, source: 'tool_call', field: 'tool_output', tool: 'bash', call_id: 'c-a3-0', snippet: 'todo list', highlight: { start: 1, length: 5 }, link: '/runs/a3?step=0' },
    ]);
  });

  it('matches a regex, here in the error messages of steps and tool calls', async () => {
    const body = await search(`q=${encodeURIComponent('Time(out|d) \\w+')}&mode=regex&field=error`);
    expect(body).toMatchObject({ total_runs: 1, total_hits: 1 });
    expect(body.runs[0].matches).toEqual([expect.objectContaining({ step: 1, source: 'step', field: 'error', snippet: 'Timeout waiting for lock', highlight: { start: 0, length: 15 } })]);
    const both = await search(`q=${encodeURIComponent('(?i)timeout')}&mode=regex&field=error`);
    expect(both).toMatchObject({ total_runs: 1, total_hits: 2 });
    expect(both.runs[0].matches.map((m: any) => [m.source, m.field, m.snippet])).toEqual([
      ['step', 'error', 'Timeout waiting for lock'],
      ['tool_call', 'error', 'Gateway Timeout'],
    ]);
  });

  it('refuses a regex the engine cannot compile with a 400 that says why', async () => {
    const { status, body } = await raw(`?q=${encodeURIComponent('a(b')}&mode=regex`);
    expect(status).toBe(400);
    expect(body.error.code).toBe('bad_regex');
    expect(body.error.message).toMatch(/missing \)/);
  });

  it('searches tool arguments, and only the calls of one tool with tool=', async () => {
    expect(ids(await search('q=tmp&field=tool_arguments'))).toEqual(['a1']);
    const http = await search('q=500&tool=http');
    expect(http).toMatchObject({ total_runs: 1, total_hits: 1 });
    expect(http.runs[0].matches).toEqual([expect.objectContaining({ source: 'tool_call', tool: 'http', call_id: 'c-a2-1', field: 'tool_output' })]);
    expect((await search('q=500&tool=bash')).total_runs).toBe(0);
    // The step's observation holds "TODO" too, but tool= searches tool calls only.
    expect(await search('q=todo&tool=bash')).toMatchObject({ total_runs: 1, total_hits: 1 });
    expect((await raw('?q=todo&tool=bash&field=action')).status).toBe(400);
  });

  it('pages through the runs, newest first or most hits first, with totals over every page', async () => {
    // todo: a3's step 0 (action and observation: one hit) and its call's output; b1's step 0.
    const first = await search('q=todo&limit=1');
    expect(first).toMatchObject({ total_runs: 2, total_hits: 3, next_offset: 1 });
    expect(ids(first)).toEqual(['b1']);
    const second = await search('q=todo&limit=1&offset=1');
    expect(second).toMatchObject({ total_runs: 2, total_hits: 3, next_offset: null });
    expect(ids(second)).toEqual(['a3']);
    expect(second.runs[0].hits).toBe(2);
    expect(await search('q=todo&limit=1&offset=5')).toMatchObject({ total_runs: 2, total_hits: 3, runs: [], next_offset: null });
    expect(ids(await search('q=todo&sort=hits'))).toEqual(['a3', 'b1']);
  });

  it('shows at most 5 matches a run, first by step', async () => {
    const body = await search('q=repeat');
    expect(body).toMatchObject({ total_runs: 1, total_hits: 7 });
    expect(body.runs[0].matches.map((m: any) => m.step)).toEqual([0, 1, 2, 3, 4]);
  });

  it('counts and lists the same way when it reads the texts (phrase, substring, regex): a step once, by its first field, 5 a run by step', async () => {
    for (const [mode, todo, repeat, needle] of [
      ['phrase', 'todo', 'repeat', 'needle'],
      ['substring', 'TODO', 'repeat', 'needle'],
      ['regex', '(?i)todo', 'rep(e)at', 'ne+dle'],
    ] as const) {
      const t = await search(`q=${encodeURIComponent(todo)}&mode=${mode}&sort=hits`);
      // Any case: a3's step 0 (action and observation, one hit) and its call's output, b1's step 0;
      // case-sensitive TODO: not the call's "todo list".
      expect(t, mode).toMatchObject({ total_runs: 2, total_hits: mode === 'substring' ? 2 : 3 });
      expect(t.runs[0].matches.map((m: any) => [m.source, m.field, m.step]), mode).toEqual(
        mode === 'substring' ? [['step', 'action', 0]] : [['step', 'action', 0], ['tool_call', 'tool_output', 0]],
      );
      const r = await search(`q=${encodeURIComponent(repeat)}&mode=${mode}`);
      expect(r, mode).toMatchObject({ total_runs: 1, total_hits: 7 });
      expect(r.runs[0].matches.map((m: any) => m.step), mode).toEqual([0, 1, 2, 3, 4]);
      expect(r.runs[0].matches[0].link, mode).toBe('/runs/a4?step=0');
      const [n] = (await search(`q=${encodeURIComponent(needle)}&mode=${mode}`)).runs[0].matches;
      expect(n, mode).toMatchObject({ highlight: { start: 61, length: 6 } });
      expect(n.snippet.indexOf('needle'), mode).toBe(61);
      expect(n.snippet.length, mode).toBe(202);
    }
  });

  it('applies from/to to the steps\' time and other run filters to the runs', async () => {
    expect(ids(await search(`q=zebra&from=${encodeURIComponent(at(3))}`))).toEqual(['b1']);
    expect(ids(await search('q=todo&status=success'))).toEqual([]);
    expect(ids(await search('q=crossed&status=success'))).toEqual(['a1']);
  });

  it('cuts a long field to a snippet around the match', async () => {
    const [match] = (await search('q=needle')).runs[0].matches;
    expect(match.snippet.startsWith('…x x ')).toBe(true);
    expect(match.snippet).toMatch(/y ?…$/);
    expect(match.snippet).toContain('x needle here y');
    expect(match.snippet.indexOf('needle')).toBe(61);
    expect(match.highlight).toEqual({ start: 61, length: 6 });
    expect(match.snippet.length).toBe(202);
  });

  it('refuses a query without a word, or without q', async () => {
    expect((await raw('?q=%21%21%21')).status).toBe(400);
    expect((await raw('')).status).toBe(400);
  });

  it('finds in one run every match in step order, the first `limit` listed and all counted', async () => {
    const all = await file.api('/api/v1/runs/a4/find?q=REPEAT');
    expect(all).toMatchObject({ run_id: 'a4', project: 'alpha', total: 7, words: ['repeat'] });
    expect(all.matches.map((m: any) => [m.step, m.field, m.link])).toEqual([0, 1, 2, 3, 4, 5, 6].map((n) => [n, 'action', `/runs/a4?step=${n}`]));
    const cut = await file.api('/api/v1/runs/a4/find?q=repeat&limit=3');
    expect(cut.total).toBe(7);
    expect(cut.matches.map((m: any) => m.step)).toEqual([0, 1, 2]);
    // Only this run: "zebra" is in a1 and b1, not in a4.
    expect((await file.api('/api/v1/runs/a4/find?q=zebra')).total).toBe(0);
    expect((await file.api('/api/v1/runs/a2/find?q=Timeout&mode=substring')).matches.map((m: any) => [m.source, m.field])).toEqual([
      ['step', 'error'],
      ['tool_call', 'error'],
    ]);
    expect((await getJson(file.server.url, '/api/v1/runs/nope/find?q=x')).status).toBe(404);
    expect((await getJson(file.server.url, '/api/v1/runs/a4/find?q=(&mode=regex')).status).toBe(400);
  });

  it('is one function in the SQL console: hasAllTokens over an indexed column, the words lower-cased', async () => {
    const res = await fetch(`${file.server.url}/api/v1/sql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sql: 'SELECT run_id FROM steps WHERE hasAllTokens(observation, {w:Array(String)}) ORDER BY run_id', params: { w: ['zebra'] } }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).rows).toEqual([['a1'], ['b1']]);
  });

  it('is in the OpenAPI description with its parameters', async () => {
    const doc = await file.api('/api/v1/openapi.json');
    const op = doc.paths['/api/v1/search']?.get;
    expect(op).toBeDefined();
    const names = op.parameters.map((p: any) => p.name);
    expect(names).toEqual(expect.arrayContaining(['q', 'mode', 'field', 'tool', 'sort', 'limit', 'offset', 'project', 'from', 'to']));
  });
});
