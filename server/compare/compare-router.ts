// GET /api/v1/compare?a[model]=x&b[model]=y (filters shared by both cohorts at the top level).
import { Router } from 'express';
import type { Storage } from '../../storage/gateway.js';
import { ApiError } from '../errors.js';
import { parseQuery, runFiltersSchema } from '../runs/run-filters.js';
import { getCompare } from './compare-queries.js';

/** Query values of one cohort: the shared ones, overridden by `a[...]` / `b[...]`. */
export function cohortQuery(query: Record<string, unknown>, side: 'a' | 'b'): Record<string, unknown> {
  const own = query[side];
  if (own !== undefined && (typeof own !== 'object' || own === null || Array.isArray(own))) {
    throw new ApiError(400, 'bad_request', `${side} must be a filter set such as ${side}[model]=gpt-4o`);
  }
  const shared = Object.fromEntries(Object.entries(query).filter(([k]) => k !== 'a' && k !== 'b'));
  return { ...shared, ...(own as Record<string, unknown> | undefined) };
}

export function compareRouter(storage: Storage): Router {
  const router = Router();
  router.get('/api/v1/compare', async (req, res) => {
    const q = req.query as Record<string, unknown>;
    if (q.a === undefined || q.b === undefined) {
      throw new ApiError(400, 'bad_request', 'give two cohorts as filter sets: a[agent_version]=1.0&b[agent_version]=2.0');
    }
    const a = parseQuery(runFiltersSchema, cohortQuery(q, 'a'));
    const b = parseQuery(runFiltersSchema, cohortQuery(q, 'b'));
    res.json(await getCompare(storage, a, b));
  });
  return router;
}
