// The filter bar: time range presets and pickers for the main dimensions. Its state is the URL.
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import type { FilterOptions } from '../../../schemas/api.js';
import { activeFilterCount, RANGE_PRESETS, rangeLabel, withDimension, type Dimension, type Filters } from '../lib/filters.js';
import type { FilterState } from '../hooks/use-filters.js';

interface Picker {
  dim: Dimension;
  label: string;
  options: (o: FilterOptions) => string[];
}

const PICKERS: Picker[] = [
  { dim: 'model', label: 'Model', options: (o) => o.models },
  { dim: 'agent', label: 'Agent', options: (o) => o.agents },
  { dim: 'task_category', label: 'Task category', options: (o) => o.task_categories },
  { dim: 'environment', label: 'Environment', options: (o) => o.environments },
  { dim: 'status', label: 'Status', options: (o) => o.statuses },
];

const EMPTY_OPTIONS: FilterOptions = {
  projects: [],
  models: [],
  agents: [],
  agent_versions: [],
  task_categories: [],
  environments: [],
  statuses: [],
  failure_modes: [],
};

export function FilterBar({ state }: { state: FilterState }) {
  const { filters, setFilters, refresh } = state;
  const project = filters.dims.project;
  const { state: opts } = useApi(`filters:${project ?? ''}`, (signal) => api.filterOptions(project, { signal }));
  const options = opts.data ?? EMPTY_OPTIONS;
  const showProject = options.projects.length > 1 || Boolean(project);

  const set = (next: Filters) => setFilters(next);
  const pick = (dim: Dimension, value: string) => set(withDimension(filters, dim, value));
  const hidden = (['agent_version', 'failure_mode'] as Dimension[]).filter((d) => filters.dims[d]);

  return (
    <div className="filter-bar" aria-label="Filters">
      <div className="segmented" role="group" aria-label="Time range">
        {RANGE_PRESETS.map((r) => (
          <button
            key={r}
            type="button"
            className={filters.range === r ? 'active' : undefined}
            aria-pressed={filters.range === r}
            title={rangeLabel({ ...filters, range: r })}
            onClick={() => set({ ...filters, range: r, from: undefined, to: undefined })}
          >
            {r === 'all' ? 'All' : r}
          </button>
        ))}
      </div>
      {filters.range === 'custom' && (
        <span className="chip" title="Time window from a chart">
          {rangeLabel(filters)}
          <button type="button" aria-label="Clear time window" onClick={() => set({ ...filters, range: '7d', from: undefined, to: undefined })}>
            ×
          </button>
        </span>
      )}
      {showProject && (
        <Select label="Project" value={project ?? ''} options={options.projects} onChange={(v) => pick('project', v)} />
      )}
      {PICKERS.map((p) => (
        <Select key={p.dim} label={p.label} value={filters.dims[p.dim] ?? ''} options={p.options(options)} onChange={(v) => pick(p.dim, v)} />
      ))}
      {hidden.map((d) => (
        <span key={d} className="chip">
          {d.replace('_', ' ')}: {filters.dims[d]}
          <button type="button" aria-label={`Clear ${d}`} onClick={() => pick(d, '')}>
            ×
          </button>
        </span>
      ))}
      {filters.tags.map((t) => (
        <span key={t} className="chip">
          tag {t}
          <button type="button" aria-label={`Clear tag ${t}`} onClick={() => set({ ...filters, tags: filters.tags.filter((x) => x !== t) })}>
            ×
          </button>
        </span>
      ))}
      <div className="filter-bar-end">
        {activeFilterCount(filters) > 0 && (
          <button type="button" className="link-btn" onClick={() => set({ dims: {}, tags: [], range: filters.range, from: filters.from, to: filters.to })}>
            Clear filters
          </button>
        )}
        <button type="button" className="btn btn-quiet" onClick={refresh} title="Reload with the current time">
          Refresh
        </button>
      </div>
    </div>
  );
}

function Select({ label, value, options, onChange }: { label: string; value: string; options: string[]; onChange: (v: string) => void }) {
  const all = value && !options.includes(value) ? [value, ...options] : options;
  return (
    <label className={value ? 'picker picker-set' : 'picker'}>
      <span className="picker-label">{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)} aria-label={label}>
        <option value="">All</option>
        {all.map((o) => (
          <option key={o} value={o}>
            {o || '(none)'}
          </option>
        ))}
      </select>
    </label>
  );
}
