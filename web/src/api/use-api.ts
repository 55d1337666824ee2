// A small data-loading hook: runs `load` whenever `key` changes, aborts the previous request,
// and reports loading / ok / error. Pages render their states from it.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './client.js';

export type ApiState<T> =
  | { status: 'loading'; data: T | undefined; error: undefined }
  | { status: 'ok'; data: T; error: undefined }
  | { status: 'error'; data: T | undefined; error: ApiError };

export interface UseApi<T> {
  state: ApiState<T>;
  reload: () => void;
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(0, 'client_error', err instanceof Error ? err.message : String(err));
}

/**
 * `key` identifies the request (e.g. the URL it will call); `load` is read at call time.
 * While a new key loads, the previous data stays available (`data`) so views don't flash.
 */
export function useApi<T>(key: string | null, load: (signal: AbortSignal) => Promise<T>): UseApi<T> {
  const [state, setState] = useState<ApiState<T>>({ status: 'loading', data: undefined, error: undefined });
  const [nonce, setNonce] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    if (key === null) return;
    const ctrl = new AbortController();
    // Already loading (the first load): keep the same state, so the view does not render again.
    setState((s) => (s.status === 'loading' ? s : { status: 'loading', data: s.data, error: undefined }));
    loadRef.current(ctrl.signal).then(
      (data) => {
        if (!ctrl.signal.aborted) setState({ status: 'ok', data, error: undefined });
      },
      (err: unknown) => {
        if (ctrl.signal.aborted) return;
        setState((s) => ({ status: 'error', data: s.data, error: toApiError(err) }));
      },
    );
    return () => ctrl.abort();
  }, [key, nonce]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { state, reload };
}
