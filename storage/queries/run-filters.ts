// The filters every analytics endpoint shares (docs/http-api.md: /api/v1/runs), parsed from a query
// string with zod. Pure.
import { z } from 'zod';
import { ApiError } from '../../schemas/api-error.js';

const list = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean)));

const time = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return undefined;
    const ms = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: 'custom', message: `not a date-time: ${v}` });
      return z.NEVER;
    }
    return ms;
  });

export const runFiltersSchema = z.object({
  project: list,
  model: list,
  agent: list,
  agent_version: list,
  task_category: list,
  environment: list,
  status: list,
  failure_mode: list,
  tag: list.transform((tags, ctx) =>
    tags.map((t) => {
      const i = t.indexOf(':');
      if (i <= 0) {
        ctx.addIssue({ code: 'custom', message: `tag must be key:value (got ${t})` });
        return { key: '', value: '' };
      }
      return { key: t.slice(0, i), value: t.slice(i + 1) };
    }),
  ),
  from: time,
  to: time,
  q: z.string().max(200).optional(),
  /** `true`: only runs the analyzer found a dead loop in; `false`: only runs without one. */
  has_loops: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
  /** `did_not_succeed`: only ended runs that did not succeed (the charts' red part); `succeeded`: only successes. */
  outcome: z.enum(['succeeded', 'did_not_succeed']).optional(),
  /** Only the direct children of these runs (runs whose run_start named one of them as `parent_run_id`). */
  parent_run_id: list,
  /** Only runs with an error of one of these signatures (GET /api/v1/errors: `signature`). */
  error_signature: list,
});

export type RunFilters = z.output<typeof runFiltersSchema>;

/** No filter at all. */
export const EMPTY_FILTERS: RunFilters = Object.freeze({
  project: [], model: [], agent: [], agent_version: [], task_category: [], environment: [], status: [],
  failure_mode: [], tag: [], from: undefined, to: undefined, q: undefined, parent_run_id: [], error_signature: [],
}) as RunFilters;

/**
 * Whether the filters pick runs by more than their project and the time window (model, status,
 * tags, a text, …): only the run summary answers those.
 */
export function narrowsRuns(f: RunFilters): boolean {
  return Object.entries(f).some(([key, value]) => key !== 'project' && key !== 'from' && key !== 'to' && (Array.isArray(value) ? value.length > 0 : value !== undefined));
}

/** A condition on (project, run_id) pairs given as two parallel Array(String) parameters, by their names. */
export function runPairsIn(projectsParam: string, runIdsParam: string): string {
  return `(project, run_id) IN (SELECT x.1, x.2 FROM (SELECT arrayJoin(arrayZip({${projectsParam}:Array(String)}, {${runIdsParam}:Array(String)})) AS x))`;
}

/** Parses with the given schema, turning zod issues into a 400 that names each bad parameter. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const r = schema.safeParse(query);
  if (!r.success) {
    const msg = r.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ');
    throw new ApiError(400, 'bad_request', msg);
  }
  return r.data;
}
