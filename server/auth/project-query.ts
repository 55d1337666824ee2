// Confines a parsed query string to one project: every `project` value anywhere in it (lists,
// comma lists, nested cohorts such as compare's a[project]) must be that project, and the
// top-level `project` is set to it. Pure.

export type Confined = { ok: true; query: Record<string, unknown> } | { ok: false; asked: string };

function values(v: unknown): string[] {
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(v)) return v.flatMap(values);
  if (v && typeof v === 'object') return Object.values(v).flatMap(values);
  return v === undefined || v === null ? [] : [String(v)];
}

function firstForeign(query: unknown, project: string, depth = 0): string | undefined {
  if (!query || typeof query !== 'object') return undefined;
  if (depth > 8) return '(a query nested too deeply)';
  for (const [k, v] of Object.entries(query)) {
    if (k.toLowerCase() === 'project') {
      const other = values(v).find((p) => p !== project);
      if (other !== undefined) return other;
    } else if (v && typeof v === 'object') {
      const other = firstForeign(v, project, depth + 1);
      if (other !== undefined) return other;
    }
  }
  return undefined;
}

export function confineQuery(query: Record<string, unknown>, project: string): Confined {
  const asked = firstForeign(query, project);
  if (asked !== undefined) return { ok: false, asked };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) if (k.toLowerCase() !== 'project') out[k] = v;
  out.project = project;
  return { ok: true, query: out };
}
