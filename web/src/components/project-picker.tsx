// The project picker: every project that holds runs (GET /api/v1/projects). The choice is the
// `project` filter in the URL, so it travels with links like every other filter.
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import type { FilterState } from '../hooks/use-filters.js';
import { withDimension } from '../lib/filters.js';
import { formatInt } from '../lib/format.js';

export function ProjectPicker({ state }: { state: FilterState }) {
  const { filters, setFilters } = state;
  const { state: res } = useApi('projects', (signal) => api.projects({ signal }));
  const projects = res.data?.projects ?? [];
  const value = filters.dims.project ?? '';
  const known = projects.some((p) => p.project === value);
  return (
    <label className="project-picker">
      <span className="project-picker-label">Project</span>
      <select value={value} onChange={(e) => setFilters(withDimension(filters, 'project', e.target.value))} aria-label="Project">
        <option value="">All projects</option>
        {value && !known && <option value={value}>{value}</option>}
        {projects.map((p) => (
          <option key={p.project} value={p.project}>
            {p.project} ({formatInt(p.runs)} runs)
          </option>
        ))}
      </select>
      {res.status === 'error' && <span className="small error-text">projects unavailable</span>}
    </label>
  );
}
