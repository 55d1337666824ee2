// GET /api/v1/search: full-text search over the steps and tool calls of every run
// (storage/queries/search-queries.ts), with the shared run filters; GET /api/v1/runs/:run_id/find:
// the same in one run, every match in step order.
import { Router } from 'express';
import { z } from 'zod';
import type { Storage } from '../../storage/gateway.js';
import { parseQuery, runFiltersSchema } from '../../storage/queries/run-filters.js';
import { resolveRunProject } from '../../storage/queries/run-steps-queries.js';
import { findInRun, SEARCH_FIELDS, SEARCH_MODES, SEARCH_SORTS, searchRuns } from '../../storage/queries/search-queries.js';
import { readsOf } from '../request-signal.js';

export const searchSchema = runFiltersSchema.extend({
  q: z.string().min(1).max(500).describe('the text to search for (words, a phrase, a substring or an RE2 regular expression, as `mode` says)'),
  mode: z.enum(SEARCH_MODES).default('words').describe('words: every word as a whole token, any case; phrase: the phrase, any case; substring: exactly as given; regex: RE2'),
  field: z.enum(SEARCH_FIELDS).default('all').describe('where to search: error is the step\'s and the tool call\'s error message'),
  tool: z.string().min(1).max(200).optional().describe('only tool calls of this tool'),
  sort: z.enum(SEARCH_SORTS).default('time').describe('time: newest run first; hits: most matches first'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const findSchema = searchSchema.pick({ q: true, mode: true, field: true, tool: true }).extend({
  project: z.string().optional().describe('the run\'s project (needed when its id is in several)'),
  limit: z.coerce.number().int().min(1).max(1000).default(200).describe('matches listed, the first in step order; total counts them all'),
});

export function searchRouter(storage: Storage): Router {
  const router = Router();
  router.get('/api/v1/search', async (req, res) => {
    const { q, mode, field, tool, sort, limit, offset, ...filters } = parseQuery(searchSchema, req.query);
    res.json(await searchRuns(readsOf(req, storage), { ...filters, q: undefined }, { text: q, mode, field, tool, sort, limit, offset }));
  });
  router.get('/api/v1/runs/:run_id/find', async (req, res) => {
    const { q, mode, field, tool, limit, project } = parseQuery(findSchema, req.query);
    const reads = readsOf(req, storage);
    const inProject = await resolveRunProject(reads, req.params.run_id, project);
    res.json(await findInRun(reads, inProject, req.params.run_id, { text: q, mode, field, tool, sort: 'time', limit, offset: 0 }));
  });
  return router;
}
