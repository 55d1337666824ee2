// The steps of a run loaded so far: the first window comes with the run, later windows are
// fetched on demand (the API caps steps per response and says steps_truncated).
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RunDetail, StepRow, ToolCallRow } from '../../../schemas/api.js';
import { api, ApiError } from '../api/client.js';

export const STEPS_WINDOW = 1000;

export interface RunSteps {
  steps: StepRow[];
  toolCalls: ToolCallRow[];
  /** More steps exist on the server than are loaded. */
  hasMore: boolean;
  loadingMore: boolean;
  error: ApiError | undefined;
  loadMore: () => void;
}

export function useRunSteps(detail: RunDetail | undefined, project: string | undefined): RunSteps {
  const [steps, setSteps] = useState<StepRow[]>([]);
  const [toolCalls, setToolCalls] = useState<ToolCallRow[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const ctrl = useRef<AbortController | null>(null);

  useEffect(() => {
    ctrl.current?.abort();
    setSteps(detail?.steps ?? []);
    setToolCalls(detail?.tool_calls ?? []);
    setHasMore(Boolean(detail?.steps_truncated));
    setLoadingMore(false);
    setError(undefined);
  }, [detail]);

  const loadMore = useCallback(() => {
    if (!detail || loadingMore || !hasMore) return;
    const c = new AbortController();
    ctrl.current = c;
    setLoadingMore(true);
    setError(undefined);
    api
      .run(detail.run.run_id, { project: project ?? detail.run.project, stepsOffset: steps.length, stepsLimit: STEPS_WINDOW }, { signal: c.signal })
      .then(
        (more) => {
          if (c.signal.aborted) return;
          const seenSteps = new Set(steps.map((s) => s.step));
          const seenCalls = new Set(toolCalls.map((t) => t.call_id));
          const newSteps = more.steps.filter((s) => !seenSteps.has(s.step));
          setSteps([...steps, ...newSteps]);
          setToolCalls([...toolCalls, ...more.tool_calls.filter((t) => !seenCalls.has(t.call_id))]);
          setHasMore(more.steps_truncated && newSteps.length > 0);
          setLoadingMore(false);
        },
        (err: unknown) => {
          if (c.signal.aborted) return;
          setError(err instanceof ApiError ? err : new ApiError(0, 'client_error', String(err)));
          setLoadingMore(false);
        },
      );
  }, [detail, project, steps, toolCalls, hasMore, loadingMore]);

  useEffect(() => () => ctrl.current?.abort(), []);
  return { steps, toolCalls, hasMore, loadingMore, error, loadMore };
}
