// GET /api/v1/runs/:run_id/graph: what one run did as a graph of tools and transitions;
// GET /api/v1/graph: the same over the runs in view, split by outcome (docs/graphs.md).
import { Router } from 'express';
import { z } from 'zod';
import { DEFAULT_MAX_FILES, DEFAULT_MAX_TOOLS } from '../../analytics/tool-graph.js';
import type { Storage } from '../../storage/gateway.js';
import { parseQuery, runFiltersSchema } from '../../storage/queries/run-filters.js';
import { resolveRunProject } from '../../storage/queries/run-steps-queries.js';
import { COHORT_MAX_TOOLS, COHORT_RUNS_CAP, getCohortGraph, getRunGraph } from '../../storage/queries/tool-graph-queries.js';
import { readsOf } from '../request-signal.js';

export const runGraphSchema = z.object({
  project: z.string().optional().describe('the project of the run (needed when the run id is in several)'),
  max_tools: z.coerce.number().int().min(1).max(100).default(DEFAULT_MAX_TOOLS).describe('tools with their own node; the rest share one "other" node'),
  max_files: z.coerce.number().int().min(0).max(100).default(DEFAULT_MAX_FILES).describe('(tool, file) pairs with their own node; a tool\'s other files share one node'),
});

export const cohortGraphSchema = runFiltersSchema.extend({
  max_tools: z.coerce.number().int().min(1).max(100).default(COHORT_MAX_TOOLS).describe('tools with their own node, most calls first; the rest share one "other" node'),
  max_runs: z.coerce.number().int().min(1).max(COHORT_RUNS_CAP).default(COHORT_RUNS_CAP).describe('the most recent runs read of those matched'),
});

export function graphRouter(storage: Storage): Router {
  const router = Router();
  router.get('/api/v1/runs/:run_id/graph', async (req, res) => {
    const q = parseQuery(runGraphSchema, req.query);
    const reads = readsOf(req, storage);
    const project = await resolveRunProject(reads, req.params.run_id, q.project);
    res.json(await getRunGraph(reads, project, req.params.run_id, { maxTools: q.max_tools, maxFiles: q.max_files }));
  });
  router.get('/api/v1/graph', async (req, res) => {
    const { max_tools, max_runs, ...filters } = parseQuery(cohortGraphSchema, req.query);
    res.json(await getCohortGraph(readsOf(req, storage), filters, { maxTools: max_tools, maxRuns: max_runs }));
  });
  return router;
}
