// The final error of failed runs (docs/errors.md "The end of a failed run"), through the real
// server and analyzer: run_end's error and the last step's observation become occurrences of
// GET /api/v1/errors with their source; a success, a run whose last step recorded the error, and
// a run still going give none; and the final error's template is the one steps and tool calls
// give the same text (three copies of one expression: they must agree).
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../helpers/test-server.js';

const NOW = Date.now();
const at = (min: number) => new Date(NOW - min * 60_000).toISOString();
const PROJECT = 'final-errors';
const TRACEBACK = (line: number, id: string) =>
  `Traceback (most recent call last):\n  File "/repo/src/app.py", line ${line}, in main\n    run()\nKeyError: '${id}'`;

function run(id: string, o: { status?: string; endError?: string; last: { observation: string; error?: string; callError?: string }; min: number }) {
  const steps = [
    { type: 'step', project: PROJECT, run_id: id, step: 0, ts: at(o.min - 1), action: 'ls', observation: 'src tests' },
    {
      type: 'step', project: PROJECT, run_id: id, step: 1, ts: at(o.min - 2), action: 'python -m app', observation: o.last.observation,
      ...(o.last.error ? { error: { type: 'StepError', message: o.last.error } } : {}),
    },
    ...(o.last.callError
      ? [{ type: 'tool_call', project: PROJECT, run_id: id, step: 1, call_id: `${id}-c`, ts: at(o.min - 2), tool: 'bash', arguments: '{"command":"python -m app"}', status: 'error', error: { type: 'ToolError', message: o.last.callError } }]
      : []),
  ];
  return [
    { type: 'run_start', project: PROJECT, run_id: id, ts: at(o.min), model: 'm-1' },
    ...steps,
    ...(o.status ? [{ type: 'run_end', project: PROJECT, run_id: id, ts: at(o.min - 3), status: o.status, ...(o.endError ? { error: { type: 'Crash', message: o.endError } } : {}) }] : []),
  ];
}

const events = [
  run('obs-1', { status: 'failure', last: { observation: TRACEBACK(12, 'user_41') }, min: 50 }),
  run('obs-2', { status: 'failure', last: { observation: TRACEBACK(97, 'order_7') }, min: 40 }),
  run('end-1', { status: 'error', endError: 'agent crashed after 31 retries', last: { observation: 'ok' }, min: 30 }),
  // The same text recorded by a step and by a tool call: one signature with run_end's.
  run('step-err', { status: 'failure', last: { observation: 'boom', error: 'agent crashed after 2 retries' }, min: 25 }),
  run('call-err', { status: 'failure', last: { observation: 'boom', callError: 'agent crashed after 5 retries' }, min: 24 }),
  // run_end repeats the last step's own error: counted once, at the step.
  run('same-err', { status: 'failure', endError: 'disk full on /dev/sda1', last: { observation: '', error: 'disk full on /dev/sda1' }, min: 23 }),
  run('ok', { status: 'success', last: { observation: TRACEBACK(3, 'x_1') }, min: 20 }),
  run('going', { last: { observation: TRACEBACK(4, 'x_2') }, min: 10 }),
].flat();

const file = serverForFile(events);

describe('the final error of a failed run', () => {
  it('is an occurrence of its signature, with its source, only for runs that failed', async () => {
    const report = await file.api(`/api/v1/errors?project=${PROJECT}&limit=50`);
    const byTemplate = new Map<string, any>(report.items.map((s: any) => [s.template, s]));
    const traceback = [...byTemplate.values()].find((s) => s.template.startsWith('Traceback (most recent call last): … KeyError'));
    expect(traceback, JSON.stringify(report.items.map((s: any) => s.template))).toBeDefined();
    // obs-1 and obs-2 only: not the success, not the run still going.
    expect(traceback.runs).toBe(2);
    expect(traceback.occurrences).toBe(2);
    expect(traceback.failed_runs).toBe(2);
    expect(new Set(traceback.examples.map((e: any) => e.source))).toEqual(new Set(['final_observation']));
    expect(traceback.examples.every((e: any) => e.step === 1 && e.link.endsWith('?step=1'))).toBe(true);

    const crashed = byTemplate.get('agent crashed after <n> retries');
    expect(crashed, JSON.stringify([...byTemplate.keys()])).toBeDefined();
    // run_end's error (end-1), a step's error (step-err) and a tool call's error (call-err).
    expect(crashed.runs).toBe(3);
    expect(crashed.occurrences).toBe(3);
    expect(new Set(crashed.examples.map((e: any) => e.source))).toEqual(new Set(['run_end', 'step', 'tool_call']));

    const disk = [...byTemplate.values()].find((s) => s.template.startsWith('disk full'));
    expect(disk.occurrences).toBe(1);
    expect(disk.examples[0].source).toBe('step');
  });

  it('gets the template steps and tool calls give the same text', async () => {
    const texts = [TRACEBACK(5, 'k_9'), 'Error: flight HAT030 not available on date 2024-05-13', `ValueError: "abc" at /tmp/x/y.py:12\n\nmore`, 'x'.repeat(300)];
    // Through the storage directly: rows with these texts in each of the three tables.
    const { storage } = file.server.services;
    const rows = texts.map((t, i) => ({ project: 'tpl', run_id: `tpl-${i}`, text: t }));
    const ts = new Date(NOW).toISOString().replace('T', ' ').replace('Z', '');
    await storage.insert('steps', rows.map((r) => ({ project: r.project, run_id: r.run_id, step: 0, ts, error_message: r.text })));
    await storage.insert('tool_calls', rows.map((r) => ({ project: r.project, run_id: r.run_id, call_id: 'c', step: 0, ts, tool: 't', error_message: r.text })));
    await storage.insert('run_analysis', rows.map((r) => ({ project: r.project, run_id: r.run_id, final_error: r.text })));
    const got = await storage.query<{ run_id: string; s: string; c: string; a: string }>(
      `SELECT s.run_id AS run_id, s.error_template AS s, c.error_template AS c, a.final_error_template AS a
       FROM (SELECT run_id, error_template FROM steps WHERE project = 'tpl') AS s
       INNER JOIN (SELECT run_id, error_template FROM tool_calls WHERE project = 'tpl') AS c USING (run_id)
       INNER JOIN (SELECT run_id, final_error_template FROM run_analysis WHERE project = 'tpl') AS a USING (run_id)`,
    );
    expect(got).toHaveLength(texts.length);
    for (const g of got) {
      expect(g.s).not.toBe('');
      expect(g.c).toBe(g.s);
      expect(g.a).toBe(g.s);
    }
  });
});
