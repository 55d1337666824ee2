// Conversions of ClickHouse JSON values (64-bit integers as strings, DateTime64 as text). Pure.

export function num(v: unknown): number {
  if (v === null || v === undefined || v === '') return 0;
  return Number(v);
}

export function numOrNull(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** '2026-11-30 09:00:00[.123]' (UTC) → '2026-11-30T09:00:00.123Z'. */
export function isoTime(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  const s = String(v);
  const ms = Date.parse(s.includes('T') ? s : `${s.replace(' ', 'T')}Z`);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

export function parseJsonObject(v: unknown): Record<string, unknown> {
  if (typeof v !== 'string' || v === '') return {};
  try {
    const o: unknown = JSON.parse(v);
    return o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Token and cost fields, as a run summary and a step both carry them. */
export function usageFields(r: Record<string, unknown>) {
  return {
    input_tokens: num(r.input_tokens),
    output_tokens: num(r.output_tokens),
    cache_read_tokens: num(r.cache_read_tokens),
    cache_write_tokens: num(r.cache_write_tokens),
    reasoning_tokens: num(r.reasoning_tokens),
    cost_usd: num(r.cost_usd),
    cost_estimated: Boolean(r.cost_estimated),
  };
}

/** Dashboard path of a run, at a step when there is one: /runs/<run_id>?step=<step>. */
export function runStepPath(runId: string, step: number | null): string {
  return `/runs/${encodeURIComponent(runId)}${step === null ? '' : `?step=${step}`}`;
}
