// HTTP calls with an API key for the security tests (real server, real requests).

export interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** Sends `method path` with `key` as a Bearer token (none when undefined); JSON in and out. */
export async function call(base: string, method: string, path: string, key?: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const h: Record<string, string> = { ...headers };
  if (key !== undefined) h.authorization = `Bearer ${key}`;
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    h['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers: h, body: payload });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

/** Creates a key through the API with an admin credential; returns its id and secret. */
export async function createKey(base: string, admin: string, scope: 'ingest' | 'read' | 'admin', project: string | undefined, name = `${scope} key`): Promise<{ id: string; key: string }> {
  const r = await call(base, 'POST', '/api/v1/keys', admin, { scope, project, name });
  if (r.status !== 201) throw new Error(`creating a key failed: ${r.status} ${r.text}`);
  return { id: r.body.id, key: r.body.key };
}

/** A small complete run of `project` (start, two steps, a tool call, end). */
export function projectRun(project: string, runId: string, ts = '2026-11-30T10:00:00.000Z'): Record<string, unknown>[] {
  return [
    { type: 'run_start', project, run_id: runId, ts, agent: { name: `${project}-agent`, version: '1.0' }, model: `${project}-model`, task: { id: `${project}-task`, category: `${project}-cat` }, environment: `${project}-env` },
    { type: 'step', project, run_id: runId, step: 0, ts, input_tokens: 100, output_tokens: 10, action: `${project} secret action`, observation: `${project} secret observation` },
    { type: 'tool_call', project, run_id: runId, step: 0, call_id: 'c1', ts, tool: `${project}_tool`, status: 'ok', arguments: { q: project } },
    { type: 'step', project, run_id: runId, step: 1, ts, input_tokens: 120, output_tokens: 12, action: 'finish' },
    { type: 'run_end', project, run_id: runId, ts, status: 'success', reward: 1 },
  ];
}
