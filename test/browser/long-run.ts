// Events of one long run (thousands of steps) for the browser test, the screenshots and
// bench/web.ts: a tool call per step (or two: a read of the file first), every 97th step failing, a repeat loop of 12 identical
// steps at LONG_RUN_LOOP_START, some long observations, and a failed ending.

type Event = Record<string, unknown>;

export const LONG_RUN_LOOP_START = 4200;
export const LONG_RUN_LOOP_LENGTH = 12;

export function isLongRunErrorStep(step: number): boolean {
  return step % 97 === 96;
}

export function longRunEvents(runId: string, steps: number, now: Date, project = 'default', callsPerStep: 1 | 2 = 1): Event[] {
  const t0 = now.getTime() - steps * 1000 - 60_000;
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const loopStart = Math.min(LONG_RUN_LOOP_START, Math.max(0, steps - LONG_RUN_LOOP_LENGTH - 5));
  const events: Event[] = [
    {
      v: 1,
      type: 'run_start',
      project,
      run_id: runId,
      ts: at(0),
      agent: { name: 'marathon-agent', version: '0.9.1' },
      model: 'claude-sonnet-4',
      task: { id: 'monorepo__migrate-build-system', category: 'refactor' },
      environment: 'swe-sandbox',
      tags: { dataset: 'long-horizon' },
      max_steps: steps,
    },
  ];
  for (let s = 0; s < steps; s++) {
    const inLoop = s >= loopStart && s < loopStart + LONG_RUN_LOOP_LENGTH;
    const failing = !inLoop && isLongRunErrorStep(s);
    const file = inLoop ? 'build/config.yaml' : `packages/pkg_${s % 40}/src/file_${s}.ts`;
    const observation = inLoop
      ? 'Error: build failed: missing key "targets" in build/config.yaml'
      : s % 50 === 25
        ? Array.from({ length: 60 }, (_, i) => `line ${i + 1} of the build log of step ${s}: compiling packages/pkg_${i % 40}`).join('\n')
        : `step ${s}: read ${file} (${120 + (s % 37)} lines); next: update its imports`;
    events.push({
      v: 1,
      type: 'step',
      project,
      run_id: runId,
      step: s,
      ts: at(1000 + s * 1000),
      model: 'claude-sonnet-4',
      input_tokens: 2000 + ((s * 37) % 900) + Math.floor(s / 10),
      output_tokens: 120 + ((s * 13) % 200),
      cost_usd: 0.004 + ((s * 7) % 10) / 2000,
      latency_ms: 800 + ((s * 53) % 1500),
      thought: `Step ${s}: ${inLoop ? 'the build still fails, try the build again' : `look at ${file}`}`,
      action: inLoop ? 'bash {"cmd":"make build"}' : `str_replace_editor {"path":"${file}"}`,
      observation,
      ...(failing ? { error: { type: 'ToolError', message: `exit code 2 at step ${s}` } } : {}),
    });
    const call = (id: string, ms: number, fields: Event) => ({ v: 1, type: 'tool_call', project, run_id: runId, step: s, call_id: `${runId}-${id}-${s}`, ts: at(ms + s * 1000), ...fields });
    if (callsPerStep === 2) {
      events.push(call('read', 1100, { tool: 'view', arguments: { path: file }, status: 'ok', duration_ms: 20 + (s % 30), output: `${file}: ${120 + (s % 37)} lines` }));
    }
    events.push(
      call('call', 1200, {
        tool: inLoop ? 'bash' : 'str_replace_editor',
        arguments: inLoop ? { cmd: 'make build' } : { path: file, old_str: `import a${s}`, new_str: `import b${s}` },
        status: failing || inLoop ? 'error' : 'ok',
        ...(failing || inLoop ? { error: { type: 'ExitCode', message: inLoop ? 'exit code 2' : `exit code 2 at step ${s}` } } : {}),
        duration_ms: 150 + (s % 300),
        output: observation,
      }),
    );
  }
  events.push({
    v: 1,
    type: 'run_end',
    project,
    run_id: runId,
    ts: at(1000 + steps * 1000 + 500),
    status: 'failure',
    reward: 0,
    error: { type: 'MaxStepsExceeded', message: `stopped after ${steps} steps` },
  });
  return events;
}

/** Posts events to /v1/events in NDJSON chunks; throws on anything not accepted. */
export async function postInChunks(baseUrl: string, events: Event[], chunk = 2000): Promise<void> {
  for (let i = 0; i < events.length; i += chunk) {
    const part = events.slice(i, i + chunk);
    const res = await fetch(`${baseUrl}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: part.map((e) => JSON.stringify(e)).join('\n'),
    });
    const body = (await res.json()) as { accepted: number; rejected: unknown[] };
    if (!res.ok || body.rejected.length) throw new Error(`ingest failed: HTTP ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
  }
}

/** GETs `path` of the server at `baseUrl` until `ok` holds for its answer (the analyzer labels runs a moment after ingest); at most `polls` polls 250 ms apart. */
export async function waitForApi(baseUrl: string, path: string, ok: (body: any) => boolean, polls = 240): Promise<void> {
  for (let i = 0; i < polls; i++) {
    const res = await fetch(`${baseUrl}${path}`);
    if (res.ok && ok(await res.json())) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${path} never answered as expected`);
}
