// GET /api/v1/projects: the projects that hold runs, with their run count and last activity,
// for the dashboard's project picker.
import { Router } from 'express';
import type { ProjectList } from '../../schemas/api.js';
import type { Storage } from '../../storage/gateway.js';
import { isoTime, num } from '../runs/row-conversions.js';
import { forcedProject } from '../auth/auth-context.js';

export async function getProjects(storage: Storage): Promise<ProjectList> {
  const rows = await storage.query<Record<string, unknown>>(
    `SELECT project, uniqExact(run_id) AS runs, max(last_event_at) AS last_event_at
     FROM runs GROUP BY project ORDER BY project LIMIT 1000`,
  );
  return {
    projects: rows.map((r) => ({ project: String(r.project), runs: num(r.runs), last_event_at: isoTime(r.last_event_at) })),
  };
}

export function projectsRouter(storage: Storage): Router {
  const router = Router();
  router.get('/api/v1/projects', async (req, res) => {
    const list = await getProjects(storage);
    // A key bound to a project sees only its own.
    const own = forcedProject(req);
    res.json(own === undefined ? list : { projects: list.projects.filter((p) => p.project === own) });
  });
  return router;
}
