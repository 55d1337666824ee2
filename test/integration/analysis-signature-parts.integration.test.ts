// The run analyzer signs runs from the signature parts stored with each step and tool call: it
// reads texts only where the analysis needs them: actions and arguments of successful runs
// (suspicious success looks at them), all texts of runs with a step of several calls or with
// rows stored before the parts existed. Each verdict must equal the one made from the full
// texts. Real engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeRun, type RunRows } from '../../analytics/analyze-run.js';
import { readRuns } from '../../storage/queries/analysis-read-queries.js';
import { BatchWriter, DEFAULT_WRITER_OPTIONS } from '../../ingest/batch-writer.js';
import { EventIngestor } from '../../ingest/event-ingestor.js';
import { TABLE_COLUMNS } from '../../ingest/event-rows.js';
import { loadPriceBook } from '../../ingest/load-prices.js';
import { openStorage, type Storage } from '../../storage/gateway.js';
import { migrate } from '../../storage/migrate.js';
import { newDataDir, removeDataDir } from '../helpers/test-server.js';

const T = Date.parse('2026-11-30T12:00:00Z');
const NOW = T + 3_600_000;
const dir = newDataDir();
let storage: Storage;
let writer: BatchWriter;
let ingestor: EventIngestor;

type Ev = Record<string, unknown>;
const events: Ev[] = [];

/** A run: steps of one `bash` call each, the same command three times (a repeat loop) then others. */
function run(id: string, status: string, opts: { severalCalls?: boolean; editsTests?: boolean } = {}): Ev[] {
  const out: Ev[] = [{ type: 'run_start', project: 'p', run_id: id, ts: T, model: 'gpt-4o', max_steps: 50 }];
  const cmds = ['pytest -x', 'pytest -x', 'pytest -x', 'cat  src/app.py', opts.editsTests ? 'rm tests/test_app.py' : 'ls', 'git   diff'];
  cmds.forEach((cmd, step) => {
    const ts = T + step * 1000;
    out.push({
      type: 'step', project: 'p', run_id: id, step, ts, input_tokens: 100 * (step + 1), output_tokens: 10,
      action: `I will run ${cmd}`, observation: step < 3 ? `1 failed in 0.${step + 3}s at 2026-11-30T12:00:0${step}Z` : '',
    });
    out.push({ type: 'tool_call', project: 'p', run_id: id, step, call_id: `${id}-c${step}`, ts: ts + 1, tool: 'bash', arguments: { cmd }, status: step < 3 ? 'error' : 'ok', output: `out ${cmd}` });
    if (opts.severalCalls && step >= 3) {
      out.push({ type: 'tool_call', project: 'p', run_id: id, step, call_id: `${id}-d${step}`, ts: ts + 2, tool: 'read', arguments: { path: `f${step}` }, status: 'ok', output: `file ${step}` });
    }
  });
  out.push({ type: 'run_end', project: 'p', run_id: id, ts: T + 10_000, status, tests: status === 'success' ? { passed: 3, failed: 0 } : undefined });
  return out;
}

/** The same rows with the texts of the events and no parts: what the analysis of full texts sees. */
function withFullTexts(rows: RunRows): RunRows {
  const id = String(rows.summary.run_id);
  const steps = new Map(events.filter((e) => e.run_id === id && e.type === 'step').map((e) => [e.step, e]));
  const calls = events.filter((e) => e.run_id === id && e.type === 'tool_call');
  return {
    ...rows,
    steps: rows.steps.map((s) => ({ ...s, parts: undefined, action: String(steps.get(s.step)?.action), observation: String(steps.get(s.step)?.observation ?? '') })),
    tool_calls: rows.tool_calls.map((c, i) => {
      const e = calls.find((x) => x.step === c.step && x.tool === c.tool && x.ts === c.ts) ?? calls[i];
      return { ...c, parts: undefined, arguments: JSON.stringify(e.arguments), output: String(e.output) };
    }),
  };
}

const verdict = (row: Record<string, unknown>) => {
  const { version: _v, analyzed_at: _a, ...rest } = row;
  return rest;
};

async function analyse(ids: string[]): Promise<Map<string, { rows: RunRows; fromParts: Record<string, unknown>; fromTexts: Record<string, unknown> }>> {
  const out = new Map();
  for (const rows of await readRuns(storage, 'p', ids)) {
    out.set(String(rows.summary.run_id), {
      rows,
      fromParts: verdict(analyzeRun(rows, { now: NOW })),
      fromTexts: verdict(analyzeRun(withFullTexts(rows), { now: NOW })),
    });
  }
  return out;
}

beforeAll(async () => {
  storage = await openStorage({ dataDir: dir, database: 'default' });
  await migrate(storage);
  writer = new BatchWriter(storage, DEFAULT_WRITER_OPTIONS);
  ingestor = new EventIngestor(writer, loadPriceBook(), { maxTextChars: 32_768, defaultProject: 'p' });
  events.push(...run('failed', 'failure'), ...run('passed', 'success', { editsTests: true }), ...run('several', 'failure', { severalCalls: true }));
  await ingestor.ingest(events.map((value) => ({ ok: true as const, value })));
  // A run stored before the parts existed: its rows without the sig_* columns (sig_version 0).
  const legacy = run('legacy', 'failure');
  events.push(...legacy);
  await ingestor.ingest(legacy.filter((e) => e.type !== 'step' && e.type !== 'tool_call').map((value) => ({ ok: true as const, value })));
  const stepCols = TABLE_COLUMNS.steps!.filter((c) => !c.startsWith('sig_'));
  const callCols = TABLE_COLUMNS.tool_calls!.filter((c) => !c.startsWith('sig_'));
  const pick = (e: Ev, cols: readonly string[]) => cols.map((c) => (c === 'arguments' ? JSON.stringify(e[c]) : c === 'metadata' ? '' : e[c] ?? (c === 'step' || c.endsWith('tokens') || c === 'cost_usd' ? 0 : c === 'latency_ms' || c === 'duration_ms' ? null : c === 'truncated' || c === 'cost_estimated' ? false : '')));
  await storage.insert('steps', legacy.filter((e) => e.type === 'step').map((e) => pick({ ...e, event_id: `s${String(e.step)}`, model: 'gpt-4o' }, stepCols)), undefined, stepCols);
  await storage.insert('tool_calls', legacy.filter((e) => e.type === 'tool_call').map((e) => pick({ ...e, event_id: String(e.call_id) }, callCols)), undefined, callCols);
});

afterAll(async () => {
  await writer?.close();
  await storage?.close();
  removeDataDir(dir);
});

describe('analysis from stored signature parts', () => {
  it('reads only the actions and arguments of a failed run with one call per step (reward-hacking evidence looks at them), and finds what the full texts give', async () => {
    const { rows, fromParts, fromTexts } = (await analyse(['failed'])).get('failed')!;
    expect(rows.steps).toHaveLength(6);
    expect(rows.tool_calls).toHaveLength(6);
    expect(rows.steps.every((s) => s.action !== '' && s.observation === '' && s.parts !== undefined)).toBe(true);
    expect(rows.tool_calls.every((c) => c.arguments !== '' && c.output === '' && c.parts !== undefined)).toBe(true);
    expect(fromParts.loop_count).toBe(1);
    expect(JSON.parse(String(fromParts.loops))[0]).toMatchObject({ kind: 'repeat', first_step: 0, last_step: 2 });
    expect(fromParts.action_sequence).not.toBe('');
    expect(fromParts).toEqual(fromTexts);
  });

  it('has the actions and arguments of a successful run (suspicious success needs them), not its observations', async () => {
    const { rows, fromParts, fromTexts } = (await analyse(['passed'])).get('passed')!;
    expect(rows.steps.every((s) => s.action.startsWith('I will run') && s.observation === '')).toBe(true);
    expect(rows.tool_calls.every((c) => c.arguments.includes('cmd') && c.output === '')).toBe(true);
    expect(fromParts.suspicious).toBe(true);
    expect(fromParts.suspicious_reasons).toContain('verifier_files_modified');
    expect(fromParts).toEqual(fromTexts);
  });

  it('reads every text of a run with a step of several calls, and of a run stored without parts', async () => {
    const got = await analyse(['several', 'legacy']);
    const several = got.get('several')!;
    expect(several.rows.tool_calls.every((c) => c.output !== '' && c.arguments !== '' && c.parts !== undefined)).toBe(true);
    expect(several.fromParts).toEqual(several.fromTexts);
    const legacy = got.get('legacy')!;
    expect(legacy.rows.steps.every((s) => s.parts === undefined && s.action !== '')).toBe(true);
    expect(legacy.rows.tool_calls.every((c) => c.parts === undefined && c.arguments !== '')).toBe(true);
    expect(legacy.fromParts).toEqual(legacy.fromTexts);
    // The same events stored with parts give the same verdict as the run stored without (whose
    // rows here carry no cost).
    const failed = (await analyse(['failed'])).get('failed')!.fromParts;
    const uncosted = (loops: unknown) => (JSON.parse(String(loops)) as Array<Record<string, unknown>>).map(({ cost_usd: _c, ...l }) => l);
    expect(uncosted(legacy.fromParts.loops)).toEqual(uncosted(failed.loops));
    for (const k of ['action_sequence', 'rework_repeated', 'failure_mode', 'failure_rule', 'self_corrected']) expect(legacy.fromParts[k], k).toEqual(failed[k]);
  });
});
