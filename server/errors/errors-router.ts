// GET /api/v1/errors: error signatures of the runs in view (storage/queries/errors-queries.ts).
import { Router } from 'express';
import { z } from 'zod';
import type { Storage } from '../../storage/gateway.js';
import { getErrors } from '../../storage/queries/errors-queries.js';
import { parseQuery, runFiltersSchema } from '../../storage/queries/run-filters.js';
import { readsOf } from '../request-signal.js';

export const errorsSchema = runFiltersSchema.extend({
  limit: z.coerce.number().int().min(1).max(500).default(50).describe('signatures listed, most runs first'),
  signature: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean)))
    .describe('only these signatures (comma-separated or repeated)'),
});

export function errorsRouter(storage: Storage): Router {
  const router = Router();
  router.get('/api/v1/errors', async (req, res) => {
    const { limit, signature, ...filters } = parseQuery(errorsSchema, req.query);
    res.json(await getErrors(readsOf(req, storage), filters, { limit, now: Date.now(), signatures: signature }));
  });
  return router;
}
