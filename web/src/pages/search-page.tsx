// Search: every step and tool call of the runs in view (the filter bar applies), by words, a
// phrase, exact text or a regular expression; results grouped by run, most recent first or most
// matches first, a page of runs at a time. "/" anywhere in the dashboard comes here.
import { useOutletContext } from 'react-router-dom';
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import type { FilterState } from '../hooks/use-filters.js';
import { useUrlParams } from '../hooks/use-url-params.js';
import { rangeLabel } from '../lib/filters.js';
import { formatInt } from '../lib/format.js';
import { SEARCH_PAGE_SIZE, searchApiParams, searchQueryOf, withSearchQuery, type SearchQuery } from '../lib/search-view.js';
import { SearchForm } from '../search/search-form.js';
import { SearchResults } from '../search/search-results.js';
import '../search/search.css';

export function SearchPage() {
  const { filters, now, key, filterSearch } = useOutletContext<FilterState>();
  const [params, setParams] = useUrlParams();
  const query = searchQueryOf(params);
  const text = query.text.trim();
  const requestKey = text ? `search:${JSON.stringify(searchApiParams(query))}${key}` : null;
  const result = useApi(requestKey, (signal) => api.search(filters, now, query, { signal }));
  const setQuery = (q: SearchQuery) => setParams((prev) => withSearchQuery(prev, q));
  const answer = text ? result.state.data : undefined;
  const page = Math.floor(query.offset / SEARCH_PAGE_SIZE) + 1;
  const pages = answer ? Math.max(1, Math.ceil(answer.total_runs / SEARCH_PAGE_SIZE)) : 1;

  return (
    <div className="page">
      <div className="page-head">
        <h1>Search</h1>
        <span className="page-sub">steps and tool calls of every run in view · {rangeLabel(filters)}</span>
        {text && result.state.status === 'loading' && answer && <Loading compact label="Searching…" />}
      </div>
      <SearchForm query={query} onSearch={setQuery} />
      {!text ? (
        <Empty title="Find anything an agent did or saw">
          Words find steps whose action, observation or error, or tool calls whose arguments, output or error, hold every word (any
          case). Choose Phrase for words in order, Exact text for any characters, Regex for a pattern. The filters above narrow the
          runs. Press <kbd>/</kbd> anywhere to come back here.
        </Empty>
      ) : result.state.status === 'error' ? (
        <ErrorState error={result.state.error} onRetry={result.reload} title={result.state.error.status === 400 ? 'This search cannot run' : undefined} />
      ) : !answer ? (
        <Loading label="Searching…" />
      ) : answer.total_runs === 0 ? (
        <Empty title={`Nothing in view holds “${text}”`}>
          No step or tool call of the runs in view matches ({rangeLabel(filters)}). Widen the time range, clear filters, or try another
          way to match.
        </Empty>
      ) : (
        <>
          <div className="search-summary" data-testid="search-summary">
            <span>
              <strong>{formatInt(answer.total_hits)}</strong> {answer.total_hits === 1 ? 'match' : 'matches'} in <strong>{formatInt(answer.total_runs)}</strong>{' '}
              {answer.total_runs === 1 ? 'run' : 'runs'}
            </span>
            <div className="segmented" role="group" aria-label="Order runs by">
              {(['time', 'hits'] as const).map((s) => (
                <button key={s} type="button" className={query.sort === s ? 'active' : undefined} aria-pressed={query.sort === s} onClick={() => setQuery({ ...query, sort: s, offset: 0 })}>
                  {s === 'time' ? 'Newest first' : 'Most matches first'}
                </button>
              ))}
            </div>
          </div>
          <SearchResults answer={answer} now={now} filterSearch={filterSearch} />
          {pages > 1 && (
            <nav className="search-pager" aria-label="Result pages">
              <button type="button" className="btn" disabled={query.offset === 0} onClick={() => setQuery({ ...query, offset: Math.max(0, query.offset - SEARCH_PAGE_SIZE) })}>
                ← Previous
              </button>
              <span className="muted">
                page {formatInt(page)} of {formatInt(pages)}
              </span>
              <button type="button" className="btn" disabled={answer.next_offset === null} onClick={() => setQuery({ ...query, offset: answer.next_offset ?? query.offset })}>
                Next →
              </button>
            </nav>
          )}
        </>
      )}
    </div>
  );
}
