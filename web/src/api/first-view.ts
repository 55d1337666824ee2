// The first view's data, asked for by main.tsx while the app's code is still loading, so the
// server works on it while the browser parses the app. The view's own requests (the same paths,
// built by the same `api` calls from the same URL and instant) then take these answers
// (`prefetch` in client.ts). Only views whose first requests follow from the URL alone: the
// overview (its first chart's data) and a run (header, first steps, step outline).
// Keep this module's imports small and free of React: it runs before the app chunk has loaded.
import { bucketFor, filterSearchOf, parseFilters } from '../lib/filters.js';
import { STEP_WINDOW } from '../lib/step-outline.js';
import { api, prefetch } from './client.js';

/** How long the first view's instant stays the app's `now`: past it, asking again is better than old data. */
const FIRST_NOW_MAX_AGE_MS = 10_000;
let firstNow: Date | undefined;

/**
 * The instant the first view's requests were made with, given once, as the app's first `now`
 * (so its requests match them). Undefined when nothing was asked for, or that was a while ago
 * (e.g. the app opened on the sign-in page): relative ranges must not end in the past.
 */
export function takeFirstViewNow(): Date | undefined {
  const now = firstNow;
  firstNow = undefined;
  return now && Date.now() - now.getTime() <= FIRST_NOW_MAX_AGE_MS ? now : undefined;
}

/** Starts the requests the view at `url` (a location: path and query string) makes first. */
export function prefetchFirstView(url: { pathname: string; search: string }, now: Date = new Date()): void {
  const filters = parseFilters(new URLSearchParams(filterSearchOf(new URLSearchParams(url.search))));
  if (url.pathname === '/') {
    firstNow = now;
    prefetch(() => [api.overview(filters, now), api.timeseries(filters, now, bucketFor(filters))]);
    return;
  }
  const run = /^\/runs\/([^/]+)$/.exec(url.pathname);
  if (run) {
    let runId: string;
    try {
      runId = decodeURIComponent(run[1]);
    } catch {
      return;
    }
    const project = filters.dims.project;
    firstNow = now;
    prefetch(() => [api.run(runId, { project, stepsLimit: STEP_WINDOW }), api.stepIndex(runId, project)]);
  }
}
