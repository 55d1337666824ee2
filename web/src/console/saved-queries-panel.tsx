// Saved queries of the project: open one into the editor, delete one.
import type { SavedQuery } from '../../../schemas/api.js';
import type { ApiError } from '../api/client.js';

interface Props {
  project: string | undefined;
  /** Projects to pick from; saved queries belong to one project. */
  projects: readonly string[];
  onProject: (p: string) => void;
  queries: readonly SavedQuery[] | undefined;
  error: ApiError | undefined;
  activeId: string | null;
  onOpen: (q: SavedQuery) => void;
  onDelete: (q: SavedQuery) => void;
}

export function SavedQueriesPanel({ project, projects, onProject, queries, error, activeId, onOpen, onDelete }: Props) {
  return (
    <section className="card console-side-card" aria-label="Saved queries">
      <div className="console-side-head">
        <h3>Saved queries</h3>
      </div>
      <label className="picker console-project">
        <span className="picker-label">Project</span>
        <select aria-label="Project of saved queries" value={project ?? ''} onChange={(e) => onProject(e.target.value)}>
          {projects.length === 0 && <option value="">{project ?? 'default'}</option>}
          {projects.map((p) => (
            <option key={p} value={p}>
              {p || '(none)'}
            </option>
          ))}
        </select>
      </label>
      {error && <div className="error-text small">Cannot load saved queries: {error.message}</div>}
      {!error && queries === undefined && <div className="muted small">Loading…</div>}
      {queries?.length === 0 && <div className="muted small">None yet. Write a query and press Save.</div>}
      {queries && queries.length > 0 && (
        <ul className="saved-list" data-testid="saved-queries">
          {queries.map((q) => (
            <li key={q.id} className={q.id === activeId ? 'active' : undefined}>
              <button type="button" className="saved-open" title={q.sql} onClick={() => onOpen(q)}>
                {q.name}
              </button>
              <button type="button" className="saved-delete" aria-label={`Delete saved query ${q.name}`} title="Delete" onClick={() => onDelete(q)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
