// Full steps of a run, fetched in windows of STEP_WINDOW positions as the list scrolls to them
// (GET /runs/:id/steps?offset=&limit=), so opening a 5,000-step run moves kilobytes, not megabytes.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { StepRow, StepWindow, ToolCallRow } from '../../../schemas/api.js';
import { api, ApiError } from '../api/client.js';
import { groupToolCallsByStep } from '../lib/chart-data.js';
import { STEP_WINDOW } from '../lib/step-outline.js';

export { STEP_WINDOW };

/** Windows fetched at once; further ones are asked for again as the list keeps asking. */
const MAX_IN_FLIGHT = 4;

export interface LoadedWindow {
  steps: Map<number, StepRow>;
  calls: Map<number | null, ToolCallRow[]>;
}

export interface StepWindows {
  /** Windows loaded so far, by window number (position / STEP_WINDOW). */
  loaded: ReadonlyMap<number, LoadedWindow>;
  /** Fetches the windows not loaded nor loading yet. */
  ensure: (windows: number[]) => void;
  error: ApiError | undefined;
  retry: () => void;
}

function toLoaded(w: Pick<StepWindow, 'steps' | 'tool_calls'>): LoadedWindow {
  return { steps: new Map(w.steps.map((s) => [s.step, s])), calls: groupToolCallsByStep(w.tool_calls) };
}

/** `seed` is the first window when it came with the run (GET /runs/:id?steps_limit=STEP_WINDOW). */
export function useStepWindows(runId: string, project: string | undefined, seed: Pick<StepWindow, 'steps' | 'tool_calls'> | undefined): StepWindows {
  const [loaded, setLoaded] = useState<Map<number, LoadedWindow>>(() => new Map());
  const [error, setError] = useState<ApiError | undefined>();
  const inFlight = useRef(new Map<number, AbortController>());
  const failed = useRef(new Set<number>());
  const key = `${project ?? ''}/${runId}`;

  useEffect(() => {
    const flights = inFlight.current;
    setLoaded(seed ? new Map([[0, toLoaded(seed)]]) : new Map());
    setError(undefined);
    failed.current.clear();
    return () => {
      for (const c of flights.values()) c.abort();
      flights.clear();
    };
  }, [key, seed]);

  const ensure = useCallback(
    (windows: number[]) => {
      for (const w of windows) {
        if (loaded.has(w) || inFlight.current.has(w) || failed.current.has(w)) continue;
        if (inFlight.current.size >= MAX_IN_FLIGHT) break;
        const ctrl = new AbortController();
        inFlight.current.set(w, ctrl);
        api.stepWindow(runId, project, w * STEP_WINDOW, STEP_WINDOW, { signal: ctrl.signal }).then(
          (win) => {
            if (ctrl.signal.aborted) return;
            inFlight.current.delete(w);
            setLoaded((prev) => new Map(prev).set(w, toLoaded(win)));
          },
          (err: unknown) => {
            if (ctrl.signal.aborted) return;
            inFlight.current.delete(w);
            failed.current.add(w);
            setError(err instanceof ApiError ? err : new ApiError(0, 'client_error', String(err)));
          },
        );
      }
    },
    [loaded, runId, project],
  );

  const retry = useCallback(() => {
    failed.current.clear();
    setError(undefined);
    setLoaded((prev) => new Map(prev));
  }, []);

  return { loaded, ensure, error, retry };
}
