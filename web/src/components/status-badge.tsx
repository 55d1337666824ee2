import type { RunState } from '../../../schemas/api.js';

const LABELS: Record<string, string> = {
  success: 'success',
  failure: 'failure',
  error: 'error',
  timeout: 'timeout',
  cancelled: 'cancelled',
  running: 'running',
};

/** A colored pill for a run's status. Unknown values still render, in neutral. */
export function StatusBadge({ status }: { status: RunState | string }) {
  const known = status in LABELS;
  return <span className={`badge badge-${known ? status : 'unknown'}`}>{LABELS[status] ?? status}</span>;
}
