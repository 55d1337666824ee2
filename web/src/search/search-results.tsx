// Search results: one card per run (its id, task, outcome, model, start and number of matches)
// with its first matches, each a snippet with the match marked, linking to the run at the step.
import { Link } from 'react-router-dom';
import type { SearchAnswer, SearchMatch, SearchRun } from '../../../schemas/api.js';
import { StatusBadge } from '../components/status-badge.js';
import { runLink } from '../lib/filters.js';
import { formatInt, formatRelative } from '../lib/format.js';
import { matchPlace } from '../lib/search-view.js';
import { Snippet } from './snippet.js';

export function SearchResults({ answer, now, filterSearch }: { answer: SearchAnswer; now: Date; filterSearch: string }) {
  return (
    <ol className="search-results" data-testid="search-results">
      {answer.runs.map((run) => (
        <RunResult key={`${run.project}\u0000${run.run_id}`} run={run} words={answer.words} now={now} filterSearch={filterSearch} />
      ))}
    </ol>
  );
}

function RunResult({ run, words, now, filterSearch }: { run: SearchRun; words: string[]; now: Date; filterSearch: string }) {
  const more = run.hits - run.matches.length;
  return (
    <li className="card search-run" data-testid="search-run" data-run-id={run.run_id}>
      <div className="search-run-head">
        <Link to={runLink(run.run_id, filterSearch, run.project)} className="search-run-id mono" title={run.run_id}>
          {run.run_id}
        </Link>
        {run.status && <StatusBadge status={run.status} />}
        {run.task_id && <span className="search-run-meta">task <span className="mono">{run.task_id}</span></span>}
        {run.model && <span className="search-run-meta">{run.model}</span>}
        {run.project !== 'default' && <span className="search-run-meta">project {run.project}</span>}
        <span className="search-run-meta" title={run.started_at ?? ''}>{run.started_at ? formatRelative(run.started_at, now) : ''}</span>
        <span className="search-run-hits">{formatInt(run.hits)} {run.hits === 1 ? 'match' : 'matches'}</span>
      </div>
      <ul className="search-matches">
        {run.matches.map((m, i) => (
          <MatchRow key={i} match={m} run={run} words={words} filterSearch={filterSearch} />
        ))}
      </ul>
      {more > 0 && (
        <div className="search-run-more muted">
          and {formatInt(more)} more in this run
        </div>
      )}
    </li>
  );
}

function MatchRow({ match, run, words, filterSearch }: { match: SearchMatch; run: SearchRun; words: string[]; filterSearch: string }) {
  return (
    <li className="search-match">
      <Link to={runLink(run.run_id, filterSearch, run.project, match.step)} className="search-match-place">
        {matchPlace(match)}
      </Link>
      <Snippet match={match} words={words} />
    </li>
  );
}
