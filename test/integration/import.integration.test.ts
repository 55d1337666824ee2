// `trajscope import` end to end over every real fixture: into a data folder (the embedded
// ClickHouse engine through the ingest path), and with --url into a running server; then what
// the API shows (runs, steps, tool calls, statuses). Importing twice does not duplicate.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandFiles, importFiles, runImport } from '../../bin/import-command.js';
import { openSink } from '../../bin/event-sink.js';
import { getJson, newDataDir, removeDataDir, startTestServer, testConfig, type TestServer } from '../helpers/test-server.js';
import { REAL } from '../importers/fixtures.js';

const dataDir = newDataDir();
let srv: TestServer | undefined;

beforeAll(() => {
  // The summary lines of runImport would clutter the test output.
  console.log = () => {};
});
afterAll(async () => {
  await srv?.close();
  removeDataDir(dataDir);
});

const TAU_0 = 'tau-bench/gpt-4o-airline/task-0/trial-0';
const runPath = (id: string) => `/api/v1/runs/${encodeURIComponent(id)}`;

describe('trajscope import', () => {
  it('imports every real fixture into the data folder: 246 runs, 2,661 steps, 1,330 tool calls, nothing skipped', async () => {
    const sink = await openSink(testConfig(dataDir), undefined, 'local');
    const summary = await importFiles(sink, expandFiles([REAL]), false);
    await sink.close();
    expect(summary).toMatchObject({ files: 21, runs: 246, steps: 2661, toolCalls: 1330, skippedCount: 0 });
    expect(summary.formats).toEqual({ 'tau-bench': 1, 'swe-agent': 3, openhands: 6, inspect: 9 });
    expect(summary.outcomes).toEqual({ success: 125, failure: 121 });
    expect(summary.ignored.map((i) => i.file)).toEqual([expect.stringMatching(/all_preds\.jsonl$/)]);
    expect(summary.notes).toEqual([{ file: expect.stringMatching(/no-samples\.json$/), note: expect.stringMatching(/no samples/) }]);

    // Importing the same files again into the same folder: same events, nothing added (below).
    const again = await openSink(testConfig(dataDir), undefined, 'local');
    expect(await importFiles(again, expandFiles([REAL]), false)).toMatchObject({ runs: 246, steps: 2661, toolCalls: 1330, skippedCount: 0 });
    await again.close();

    srv = await startTestServer({}, dataDir);
    const { body } = await getJson(srv.url, '/api/v1/overview?project=local');
    // 125 successes: tau-bench 84, SWE-agent 3, OpenHands 8, Inspect 30; 121 failures.
    expect(body).toMatchObject({ runs: 246, ended: 246, successes: 125, steps_total: 2661, tool_calls: 1330 });

    const tau = await getJson(srv.url, runPath(TAU_0));
    expect(tau.status).toBe(200);
    expect(tau.body.run).toMatchObject({ status: 'failure', reward: 0, steps: 15, tool_calls: 8, tool_errors: 1, model: 'gpt-4o' });
    expect(tau.body.steps).toHaveLength(15);
    expect(tau.body.scores).toEqual([expect.objectContaining({ name: 'reward', value: 0, source: 'verifier' })]);
  });

  it('shows the tokens, costs, tool errors and outcome of each format as counted by hand from the files', async () => {
    const run = async (id: string) => (await getJson(srv!.url, `${runPath(id)}?project=local`)).body.run;
    // SWE-agent 0.x: info.model_stats {tokens_sent 122612, tokens_received 1369, instance_cost 1.26719},
    // 12 trajectory entries, 4 observations with errors (a traceback, 3 rejected edits), exit_status submitted.
    expect(await run('swe-agent/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458')).toMatchObject({
      status: 'success', steps: 12, tool_calls: 12, tool_errors: 4, input_tokens: 122612, output_tokens: 1369, cost_usd: expect.closeTo(1.26719, 6), cost_estimated: false,
    });
    // OpenHands resolver output: metrics.costs sum to $0.070713 and $1.152933, success true.
    expect(await run('openhands/b0c584ab/neubig/pr-viewer#5')).toMatchObject({ status: 'success', steps: 4, tool_calls: 3, cost_usd: expect.closeTo(0.070713, 9), cost_estimated: false });
    expect(await run('openhands/612495a2/neubig/pr-viewer#1')).toMatchObject({ status: 'success', steps: 22, tool_calls: 21, cost_usd: expect.closeTo(1.152933, 9) });
    // Inspect browser log: 5 model events (input 15235, output 281, cache read 9088), 4 tool events,
    // score `includes` C; no cost in the format, so it is priced and flagged as estimated.
    expect(await run('inspect/browser/ZB2vu5GNujYaBdPSReCeop/1/epoch-1')).toMatchObject({
      status: 'success', reward: 1, steps: 5, tool_calls: 4, tool_errors: 0, input_tokens: 15235, output_tokens: 281, cache_read_tokens: 9088, cost_estimated: true, model: 'openai/gpt-4o-mini',
    });
  });

  it('sends to a running server with --url, and a second import changes nothing', async () => {
    const files = [
      join(REAL, 'tau-bench/historical_trajectories/gpt-4o-airline.json'),
      join(REAL, 'openhands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl'),
      join(REAL, 'inspect-ai/tests/log/test_eval_log/log_streaming.eval'),
    ];
    const config = testConfig(newDataDir());
    expect(await runImport(config, files, { url: srv!.url, project: 'http', progress: false })).toBe(0);
    const first = (await getJson(srv!.url, '/api/v1/overview?project=http')).body;
    expect(first).toMatchObject({ runs: 207, ended: 207, steps_total: 2454 + 107 + 4, tool_calls: 1164 + 105 });
    expect(first.successes).toBe(84 + 2 + 3);

    const runs = (await getJson(srv!.url, '/api/v1/runs?project=http&status=failure&q=ponyc&limit=10')).body.runs;
    expect(runs).toHaveLength(1);
    // The same run was imported into project `local` above: the project disambiguates.
    const oh = (await getJson(srv!.url, `${runPath(runs[0].run_id)}?project=http`)).body;
    expect(oh.run).toMatchObject({ status: 'failure', steps: 50, tool_calls: 49, tool_errors: 24, max_steps: 50, task_id: 'ponylang__ponyc-4588' });
    expect(oh.run.started_at).toBe('2025-04-30T17:56:40.640Z');

    expect(await runImport(config, files, { url: srv!.url, project: 'http', progress: false })).toBe(0);
    const again = (await getJson(srv!.url, '/api/v1/overview?project=http')).body;
    expect(again).toMatchObject({ runs: first.runs, steps_total: first.steps_total, tool_calls: first.tool_calls, successes: first.successes });
  });

  it('keeps our NDJSON as it was: streamed, bad lines skipped with their line number; an unknown file is an error', async () => {
    const dir = newDataDir();
    const example = readFileSync(new URL('../../../shared/examples/run.ndjson', import.meta.url), 'utf8').trim().split('\n');
    const file = join(dir, 'events.ndjson');
    writeFileSync(file, [example[0], '{oops', ...example.slice(1), JSON.stringify({ type: 'step', run_id: 'r-7f3a' })].join('\n'));
    const unknown = join(dir, 'notes.json');
    writeFileSync(unknown, JSON.stringify({ hello: 1 }));
    const sink = await openSink(testConfig(dir), srv!.url, 'ndjson');
    const summary = await importFiles(sink, [file, unknown], false);
    expect(summary).toMatchObject({ runs: 1, steps: 2, toolCalls: 2, events: 7, skippedCount: 3, formats: { 'trajscope-ndjson': 1 } });
    expect(summary.skipped).toEqual([
      { file, line: 2, error: expect.stringMatching(/^invalid JSON/) },
      { file, line: 9, error: 'step is required' },
      { file: unknown, error: expect.stringMatching(/^unknown format: a JSON object with keys hello/) },
    ]);
    // The example names its project (`default`): --project only fills events that name none.
    const run = (await getJson(srv!.url, `${runPath('r-7f3a')}?project=default`)).body.run;
    expect(run).toMatchObject({ status: 'failure', steps: 2, tool_calls: 2 });
    removeDataDir(dir);
  });
});
