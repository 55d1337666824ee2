// The frame around every page: top navigation and the filter bar.
import { NavLink, Outlet, useLocation } from 'react-router-dom';
import { FilterBar } from './filter-bar.js';
import { useFilters } from '../hooks/use-filters.js';

export function Layout() {
  const filterState = useFilters();
  const { pathname } = useLocation();
  // The run page shows one run: the filters don't apply to it, but links back keep them.
  const showFilters = !/^\/runs\/.+/.test(pathname) && pathname !== '/ingest' && pathname !== '/console';
  return (
    <div className="app">
      <header className="topbar">
        <NavLink to={{ pathname: '/', search: filterState.filterSearch }} className="brand">
          <span className="brand-mark" aria-hidden="true">◆</span> Trajscope
        </NavLink>
        <nav className="nav" aria-label="Main">
          <NavLink to={{ pathname: '/', search: filterState.filterSearch }} end>
            Overview
          </NavLink>
          <NavLink to={{ pathname: '/runs', search: filterState.filterSearch }}>Runs</NavLink>
          <NavLink to="/ingest">Ingest</NavLink>
          <NavLink to="/console">SQL console</NavLink>
        </nav>
      </header>
      {showFilters && <FilterBar state={filterState} />}
      <main className="content">
        <Outlet context={filterState} />
      </main>
    </div>
  );
}
