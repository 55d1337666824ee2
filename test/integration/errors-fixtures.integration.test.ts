// Error signatures on the real fixtures (tool and step errors of tau-bench, OpenHands, SWE-agent,
// mini-swe-agent, Codex, Claude Code, ATIF), imported with `trajscope import`'s own code into a
// real server: which messages share a template, as a careful reader would group them (written
// down below), and GET /api/v1/errors and the runs filter `error_signature` agreeing with the
// stored rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSink } from '../../bin/event-sink.js';
import { expandFiles, importFiles } from '../../bin/import-command.js';
import { errorRowsSql } from '../../storage/queries/error-rows-sql.js';
import { getOk, startTestServer, testConfig, type TestServer } from '../helpers/test-server.js';

const FIXTURES = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const SOURCES = ['real/tau-bench', 'real/openhands', 'real/swe-agent', 'coding-agents/mini-swe-agent', 'coding-agents/codex', 'coding-agents/claude-code', 'coding-agents/atif'];

let srv: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'trajscope-errors-'));
/** Every error message stored, with its template. */
let templateOf: Map<string, string>;

async function sql(query: string): Promise<unknown[][]> {
  const res = await fetch(`${srv.url}/api/v1/sql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: query }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { rows: unknown[][] }).rows;
}

/** Imports every fixture (`trajscope import`'s own code) and waits until each run is analysed. */
async function importFixtures(): Promise<void> {
  const sink = await openSink(testConfig(dir), srv.url, 'default');
  try {
    await importFiles(sink, expandFiles(SOURCES.map((s) => FIXTURES + s)), false);
  } finally {
    await sink.close();
  }
  await srv.services.writer.flush();
  await srv.services.analyzer.drain();
}

beforeAll(async () => {
  srv = await startTestServer();
  await importFixtures();
  const rows = await sql(`SELECT error_message, any(error_template) FROM (SELECT error_message, error_template FROM steps WHERE error_message != ''
                          UNION ALL SELECT error_message, error_template FROM tool_calls WHERE error_message != ''
                          UNION ALL SELECT final_error, final_error_template FROM run_analysis FINAL WHERE final_error != '') GROUP BY error_message`);
  templateOf = new Map(rows.map(([m, t]) => [String(m), String(t)]));
}, 120_000);
afterAll(async () => {
  await srv?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The template of the stored message that starts with `start` (and holds `part`). */
function template(start: string, part = ''): string {
  const hits = [...templateOf].filter(([m]) => m.startsWith(start) && m.includes(part));
  expect(hits.length, `a stored error starting with ${JSON.stringify(start)}`).toBeGreaterThan(0);
  return hits[0][1];
}
const same = (...starts: string[]) => expect(new Set(starts.map((s) => template(s))).size, starts.join(' | ')).toBe(1);
const differ = (...starts: string[]) => expect(new Set(starts.map((s) => template(s))).size, starts.join(' | ')).toBe(starts.length);

describe('error signatures of the real fixtures', () => {
  it('group what differs only by ids, numbers, dates, paths or quoted values, and nothing else', () => {
    // tau-bench: the same refusal for another flight, date, amount or payment method.
    same('Error: flight HAT030 not available on date 2024-05-13', 'Error: flight HAT223 not available on date 2024-05-14');
    same('Error: payment amount does not add up, total price is 305, but paid 255', 'Error: payment amount does not add up, total price is 4875, but paid 1625');
    same('Error: not enough seats on flight HAT229', 'Error: not enough seats on flight HAT290');
    expect(template('Error: flight HAT030')).toBe('Error: flight <n> not available on date <time>');
    differ('Error: gift card balance is not enough', 'Error: not enough balance in payment method', 'Error: payment method not found', 'Error: not enough seats on flight');
    // OpenHands: a failed str_replace whatever the old_str and the file; its other refusals apart.
    const notVerbatim = [...templateOf].filter(([m]) => m.startsWith('ERROR:\nNo replacement was performed, old_str `') && m.includes('did not appear verbatim'));
    expect(new Set(notVerbatim.map(([m]) => m)).size).toBeGreaterThan(3);
    expect(new Set(notVerbatim.map(([, t]) => t))).toEqual(new Set(['ERROR: … No replacement was performed, old_str `<*>` did not appear verbatim in <path>']));
    differ('ERROR:\nNo replacement was performed, old_str `', 'ERROR:\nParameter `old_str` is required', 'ERROR:\nNo replacement was performed. Multiple occurrences', 'ERROR:\nInvalid `view_range`');
    // A command's exit code alone, from any harness, is one signature.
    same('exit code 127', 'exit code 2', 'exit code 1');
    // mini-swe-agent: the same failing test file check; a missing command is not a missing module.
    same('exit code 65: == [test_l060.sql] FAIL', 'exit code 65: == [test_comprehensive.sql] FAIL');
    differ('exit code 127: bash: line 1: sqlfluff: command not found', 'exit code 1: /opt/miniconda3/bin/python: No module named pytest', 'exit code 65: == [');
    // Claude Code: a shell id; and a traceback is known by its last line, not its header.
    expect(template('Shell dce0af is not running')).toBe('Shell <n> is not running, so cannot be killed (status: killed)');
    expect(template('Exit code 127\n/bin/bash: line 1: pytest: command not found')).toBe('Exit code <n> … <path>: line <n>: pytest: command not found');
    // SWE-agent: the same refusal three times is one.
    same('Your proposed edit has introduced new syntax error(s)');
  });

  it('add the final errors of failed runs that only their end tells, and not a polite goodbye', async () => {
    const finals = await sql(`SELECT run_id, final_error_source, final_error_template FROM run_analysis FINAL WHERE final_error != '' ORDER BY run_id`);
    // run_end's errors of a mini-swe-agent run (the model's API failed) and of an OpenHands run
    // (its iteration limit). The failed tau-bench conversations end with the user's "Thank you!
    // ###STOP###" or "Transfer successful", which read as no failure, so they add none.
    expect(finals.map(([run, source, template]) => [String(run).split('/')[0], source, template])).toEqual([
      ['mini-swe-agent', 'run_end', 'litellm.InternalServerError: InternalServerError: DeepseekException - [SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol (<file>:<n>)'],
      ['openhands', 'run_end', 'RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: <n>, max iteration: <n>'],
    ]);
  });

  it('are what GET /api/v1/errors counts, and what the runs filter error_signature finds', async () => {
    const report = await getOk(srv.url, '/api/v1/errors?limit=500');
    expect(report.signatures).toBe(report.items.length);
    expect(report.items.length).toBe(new Set(templateOf.values()).size);
    for (const item of report.items) {
      expect(item.failed_runs).toBeLessThanOrEqual(item.runs);
      expect(item.runs).toBeLessThanOrEqual(item.occurrences);
      expect(item.trend.reduce((a: number, b: number) => a + b, 0), item.template).toBe(item.occurrences);
      expect(item.examples.length).toBeGreaterThan(0);
      expect(item.first_seen <= item.last_seen).toBe(true);
    }
    expect(report.occurrences).toBe(report.items.reduce((n: number, i: any) => n + i.occurrences, 0));
    const flight = report.items.find((i: any) => i.template === 'Error: flight <n> not available on date <time>');
    // Occurrences: the steps with such an error; runs: the runs that have one (from the stored rows).
    const [[steps, runs]] = await sql(`SELECT uniqExact(run_id, ifNull(toString(step), call_id)), uniqExact(run_id) FROM tool_calls WHERE error_template = 'Error: flight <n> not available on date <time>'`);
    expect([flight.occurrences, flight.runs]).toEqual([Number(steps), Number(runs)]);
    expect(flight.tools).toEqual(['update_reservation_flights']);
    // A step whose tool call failed with the same message is one occurrence, named by its tool.
    const exit = report.items.find((i: any) => i.template === 'exit code <n>');
    expect(exit.tools).toContain('execute_bash');
    expect(exit.examples.every((e: any) => e.source === 'tool_call' && e.tool !== '')).toBe(true);
    const listed = await getOk(srv.url, `/api/v1/runs?error_signature=${flight.signature}&limit=100`);
    const expected = await sql(`SELECT DISTINCT run_id FROM tool_calls WHERE error_template = 'Error: flight <n> not available on date <time>' ORDER BY run_id`);
    expect(listed.runs.map((r: any) => r.run_id).sort()).toEqual(expected.map(([r]) => r));
    // Failed after: those of them that failed; runs with errors in all: every run with an error row.
    const failed = await getOk(srv.url, `/api/v1/runs?error_signature=${flight.signature}&outcome=did_not_succeed&limit=100`);
    expect(flight.failed_runs).toBe(failed.runs.length);
    expect(flight.failed_runs).toBeGreaterThan(0);
    const [[withErrors]] = await sql(`SELECT uniqExact(project, run_id) FROM (${errorRowsSql('')})`);
    expect(report.runs).toBe(Number(withErrors));
    // One signature asked for: that one only.
    const one = await getOk(srv.url, `/api/v1/errors?signature=${flight.signature}`);
    expect(one.items.map((i: any) => i.template)).toEqual([flight.template]);
  });

  it('date each signature first seen at its first error in any run, whatever the filters', async () => {
    const firsts = new Map(
      (await sql(`SELECT template, toUnixTimestamp64Milli(min(ts)) FROM (${errorRowsSql('')}) GROUP BY template`)).map(([t, ms]) => [String(t), Number(ms)]),
    );
    const [[model]] = await sql(`SELECT model FROM runs WHERE model != '' GROUP BY model ORDER BY count() DESC LIMIT 1`);
    // A window from the middle error on: signatures seen before it keep their first.
    const [[middle]] = await sql(`SELECT toUnixTimestamp64Milli(quantileExact(0.5)(ts)) FROM (${errorRowsSql('')})`);
    // All runs (their first read in the signatures' own pass), one model's runs and a window (read apart).
    const paths = ['/api/v1/errors?limit=500', `/api/v1/errors?limit=500&model=${encodeURIComponent(String(model))}`, `/api/v1/errors?limit=500&from=${Number(middle)}`];
    for (const path of paths) {
      const report = await getOk(srv.url, path);
      expect(report.items.length, path).toBeGreaterThan(0);
      for (const item of report.items) expect([item.template, Date.parse(item.first_seen)], path).toEqual([item.template, firsts.get(item.template)]);
    }
    const windowed = await getOk(srv.url, paths[2]!);
    expect(windowed.items.some((i: any) => Date.parse(i.first_seen) < Number(middle) && !i.new_in_window)).toBe(true);
  });
  it('read the same from the runs\' analyses as from their raw rows, and again after every event is delivered twice', async () => {
    const [[model]] = await sql(`SELECT model FROM runs WHERE model != '' GROUP BY model ORDER BY count() DESC LIMIT 1`);
    const [[middle]] = await sql(`SELECT toUnixTimestamp64Milli(quantileExact(0.5)(ts)) FROM (${errorRowsSql('')})`);
    const paths = ['/api/v1/errors?limit=500', `/api/v1/errors?limit=500&model=${encodeURIComponent(String(model))}`, `/api/v1/errors?limit=500&from=${Number(middle)}&to=${Date.now()}`];
    // And the runs filter error_signature, for two signatures: a step error's and a run end's.
    const everything = await getOk(srv.url, paths[0]!);
    const sigs = [everything.items[0].signature, everything.items.find((i: any) => i.examples.some((e: any) => e.source === 'run_end')).signature];
    const answers = async () => ({
      // An open window ends at the time asked.
      errors: (await Promise.all(paths.map((p) => getOk(srv.url, p)))).map((r) => ({ ...r, to: undefined })),
      runs: (await getOk(srv.url, `/api/v1/runs?limit=200&${sigs.map((s) => `error_signature=${s}`).join('&')}`)).runs.map((r: any) => r.run_id).sort(),
    });
    // Every run is analysed: its occurrences come from its analysis (step_error_*), which holds
    // each one of the raw rows once.
    const [[kept, raw]] = await sql(`SELECT (SELECT sum(length(step_error_templates)) FROM run_analysis FINAL),
                                            (SELECT count() FROM (SELECT DISTINCT run_id, occurrence, template FROM (${errorRowsSql('')}) WHERE occurrence != 'end'))`);
    expect(Number(kept)).toBe(Number(raw));
    expect(Number(kept)).toBeGreaterThan(100);
    const fromAnalyses = await answers();
    expect(fromAnalyses.runs.length).toBeGreaterThan(everything.items[0].runs);
    // The analyses cover no row any more (as after the upgrade to the rollup): every run is read raw.
    await srv.services.storage.command(`ALTER TABLE run_analysis UPDATE source_ingested_at = toDateTime64(0, 6, 'UTC') WHERE 1 SETTINGS mutations_sync = 2`);
    const [[stale]] = await sql(`SELECT count() FROM run_analysis FINAL WHERE source_ingested_at > toDateTime64(0, 6, 'UTC')`);
    expect(Number(stale)).toBe(0);
    expect(await answers()).toEqual(fromAnalyses);
    // Every event again: each run is analysed anew over rows stored twice, and nothing changes.
    await importFixtures();
    const [[fresh, all]] = await sql(`SELECT countIf(source_ingested_at > toDateTime64(0, 6, 'UTC')), count() FROM run_analysis FINAL`);
    expect(Number(fresh)).toBe(Number(all));
    expect(await answers()).toEqual(fromAnalyses);
  }, 120_000);
});
