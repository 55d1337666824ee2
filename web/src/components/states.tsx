// Loading, empty and error states, used by every view so they look and read the same.
import type { ReactNode } from 'react';
import type { ApiError } from '../api/client.js';

export function Loading({ label = 'Loading…', compact = false }: { label?: string; compact?: boolean }) {
  return (
    <div className={compact ? 'state state-compact' : 'state'} role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <div className="state-title">{title}</div>
      {children && <div className="state-body">{children}</div>}
    </div>
  );
}

export function ErrorState({ error, onRetry, title }: { error: ApiError; onRetry?: () => void; title?: string }) {
  return (
    <div className="state state-error" role="alert">
      <div className="state-title">{title ?? (error.isNetwork ? 'Server unreachable' : 'Something went wrong')}</div>
      <div className="state-body">
        {error.message}
        {!error.isNetwork && <span className="muted"> ({error.code}{error.status ? `, HTTP ${error.status}` : ''})</span>}
      </div>
      {onRetry && (
        <button type="button" className="btn" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
