// The frame around every page: the side navigation (grouped), the project picker, the theme
// toggle and the filter bar. Links between pages keep the filters (they live in the URL).
// "/" pressed outside a text field opens Search.
import { useEffect, type ReactNode } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { FilterBar } from './filter-bar.js';
import { SignOutButton } from './sign-out-button.js';
import { ProjectPicker } from './project-picker.js';
import { useFilters } from '../hooks/use-filters.js';
import { useTheme } from '../hooks/use-theme.js';

/** Pages about one thing (a run, the ingest pipeline, the SQL console) have no filter bar. */
const NO_FILTERS = [/^\/runs\/.+/, /^\/ingest$/, /^\/console$/, /^\/alerts$/];

export function Layout() {
  const filterState = useFilters();
  const { theme, toggle } = useTheme();
  const { pathname } = useLocation();
  const showFilters = !NO_FILTERS.some((re) => re.test(pathname));
  const f = (path: string) => ({ pathname: path, search: filterState.filterSearch });
  useSearchShortcut(filterState.filterSearch);
  return (
    <div className="app">
      <aside className="sidebar">
        <NavLink to={f('/')} className="brand">
          <span className="brand-mark" aria-hidden="true">◆</span> Trajscope
        </NavLink>
        <ProjectPicker state={filterState} />
        <nav className="nav" aria-label="Main">
          <NavGroup title="Monitor">
            <NavLink to={f('/')} end>Overview</NavLink>
            <NavLink to={f('/runs')}>Runs</NavLink>
            <NavLink to={f('/search')} title="Search every step and tool call (press /)">
              Search
            </NavLink>
            <NavLink to={f('/failures')}>Failure modes</NavLink>
            <NavLink to={f('/errors')}>Errors</NavLink>
            <NavLink to={f('/loops')}>Loops</NavLink>
            <NavLink to={f('/paths')}>Tool paths</NavLink>
            <NavLink to={f('/costs')}>Costs</NavLink>
          </NavGroup>
          <NavGroup title="Analyse">
            <NavLink to={f('/compare')}>Compare</NavLink>
            <NavLink to={f('/rl/training')}>Training</NavLink>
            <NavLink to={f('/rl/tasks')}>Tasks &amp; environments</NavLink>
            <NavLink to="/console">SQL console</NavLink>
          </NavGroup>
          <NavGroup title="Operate">
            <NavLink to="/ingest">Ingest</NavLink>
            <NavLink to="/alerts">Alerts</NavLink>
          </NavGroup>
        </nav>
        <div className="sidebar-foot">
          <SignOutButton />
          <button type="button" className="theme-toggle" onClick={toggle} aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`} data-theme-now={theme}>
            <span aria-hidden="true">{theme === 'dark' ? '☀' : '☾'}</span> {theme === 'dark' ? 'Light theme' : 'Dark theme'}
          </button>
        </div>
      </aside>
      <div className="main">
        {showFilters && <FilterBar state={filterState} />}
        <main className="content">
          <Outlet context={filterState} />
        </main>
      </div>
    </div>
  );
}

/** "/" outside a text field opens Search (with the filters), where the search box takes the focus. */
function useSearchShortcut(filterSearch: string) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName) || t.closest('.cm-editor'))) return;
      e.preventDefault();
      if (pathname === '/search') document.querySelector<HTMLInputElement>('[data-testid="search-text"]')?.focus();
      else navigate({ pathname: '/search', search: filterSearch });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [navigate, pathname, filterSearch]);
}

function NavGroup({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="nav-group">
      <div className="nav-group-title">{title}</div>
      {children}
    </div>
  );
}
