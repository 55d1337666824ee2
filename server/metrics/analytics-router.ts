// GET /api/v1/metrics/breakdown, /api/v1/failures, /api/v1/loops, /api/v1/costs/spikes
import { Router } from 'express';
import { z } from 'zod';
import type { Config } from '../../bin/config.js';
import type { Storage } from '../../storage/gateway.js';
import { getBreakdown } from '../breakdown/breakdown-queries.js';
import { getCostSpikes } from '../costs/cost-spikes-queries.js';
import { getFailures } from '../failures/failures-queries.js';
import { getLoops } from '../loops/loops-queries.js';
import { parseQuery, runFiltersSchema } from '../runs/run-filters.js';

const breakdownSchema = runFiltersSchema.extend({
  by: z.string().min(1).max(200).default('model'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
const failuresSchema = runFiltersSchema.extend({
  by: z.string().min(1).max(200).default('model'),
  examples: z.coerce.number().int().min(0).max(50).default(5),
});
const loopsSchema = runFiltersSchema.extend({
  kind: z.enum(['repeat', 'cycle', 'stall']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
const spikesSchema = runFiltersSchema.extend({ limit: z.coerce.number().int().min(1).max(1000).default(100) });

export function analyticsRouter(storage: Storage, config: Pick<Config, 'analysis'>): Router {
  const router = Router();
  router.get('/api/v1/metrics/breakdown', async (req, res) => {
    const q = parseQuery(breakdownSchema, req.query);
    res.json(await getBreakdown(storage, q, q.by, q.limit));
  });
  router.get('/api/v1/failures', async (req, res) => {
    const q = parseQuery(failuresSchema, req.query);
    res.json(await getFailures(storage, q, q.by, q.examples));
  });
  router.get('/api/v1/loops', async (req, res) => {
    const q = parseQuery(loopsSchema, req.query);
    res.json(await getLoops(storage, q, q.limit, q.kind));
  });
  router.get('/api/v1/costs/spikes', async (req, res) => {
    const q = parseQuery(spikesSchema, req.query);
    res.json(
      await getCostSpikes(
        storage,
        q,
        {
          zThreshold: config.analysis.costSpikeZ,
          contextFactor: config.analysis.contextBlowupFactor,
          hourlyFactor: config.analysis.hourlySpendFactor,
        },
        q.limit,
      ),
    );
  });
  return router;
}
