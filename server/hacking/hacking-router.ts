// GET /api/v1/hacking: reward-hacking evidence per task or environment (storage/queries/hacking-queries.ts).
import { Router } from 'express';
import { z } from 'zod';
import type { Storage } from '../../storage/gateway.js';
import { getHacking } from '../../storage/queries/hacking-queries.js';
import { parseQuery, runFiltersSchema } from '../../storage/queries/run-filters.js';
import { readsOf } from '../request-signal.js';

export const hackingSchema = runFiltersSchema.extend({
  by: z.enum(['task', 'environment']).default('task').describe('group the ended runs by task id or by environment'),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('groups listed, most runs with evidence first'),
});

export function hackingRouter(storage: Storage): Router {
  const router = Router();
  router.get('/api/v1/hacking', async (req, res) => {
    const { by, limit, ...filters } = parseQuery(hackingSchema, req.query);
    res.json(await getHacking(readsOf(req, storage), filters, by, limit));
  });
  return router;
}
