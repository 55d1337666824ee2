// "Find in this run": the run's steps and tool calls holding a text (words, exact text or a
// regex, as on the Search page), found by the server however long the run is. Enter opens the
// first step with a match; ▲ ▼ (or Enter again, Shift+Enter back) move between those steps; the
// list shows every match.
import { useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { formatInt } from '../lib/format.js';
import { matchPlace } from '../lib/search-view.js';
import { Snippet } from '../search/snippet.js';
import '../search/search.css';

const MODES = [
  { value: 'words', label: 'Words' },
  { value: 'substring', label: 'Exact text' },
  { value: 'regex', label: 'Regex' },
] as const;

interface Props {
  runId: string;
  project: string | undefined;
  /** Opens the run at a step. */
  onGo: (step: number) => void;
  /** A link to one step of this run. */
  stepLink: (step: number) => string;
}

export function FindInRun({ runId, project, onGo, stepLink }: Props) {
  const [text, setText] = useState('');
  const [mode, setMode] = useState<(typeof MODES)[number]['value']>('words');
  const [asked, setAsked] = useState<{ text: string; mode: string } | null>(null);
  const [at, setAt] = useState(0);
  const [listOpen, setListOpen] = useState(false);
  const found = useApi(asked ? `find:${project ?? ''}:${runId}:${asked.mode}:${asked.text}` : null, (signal) => api.findInRun(runId, project, asked!, { signal }));
  const answer = asked ? found.state.data : undefined;
  // The steps with a match, each once (a step and its tool call may both match; a tool call
  // recorded without a step cannot be scrolled to).
  const steps = useMemo(() => [...new Set((answer?.matches ?? []).flatMap((m) => (m.step === null ? [] : [m.step])))], [answer]);

  // A new answer opens the run at its first match.
  useEffect(() => {
    if (found.state.status !== 'ok' || !steps.length) return;
    setAt(0);
    onGo(steps[0]);
    // Only when an answer arrives.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [found.state.status, answer]);

  const move = (by: number) => {
    if (!steps.length) return;
    const next = (at + by + steps.length) % steps.length;
    setAt(next);
    onGo(steps[next]);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    const t = text.trim();
    if (!t) return setAsked(null);
    if (asked && asked.text === t && asked.mode === mode) move(e.shiftKey ? -1 : 1);
    else setAsked({ text: t, mode });
  };

  let status = '';
  if (asked && found.state.status === 'loading') status = 'Finding…';
  else if (asked && found.state.status === 'error') status = found.state.error.message;
  else if (answer) {
    if (answer.total === 0) status = 'No match';
    else {
      status = `${formatInt(steps.length ? at + 1 : 0)} of ${formatInt(steps.length)} ${steps.length === 1 ? 'step' : 'steps'} · ${formatInt(answer.total)} ${answer.total === 1 ? 'match' : 'matches'}`;
      if (answer.total > answer.matches.length) status += ` (the first ${formatInt(answer.matches.length)} listed)`;
    }
  }

  return (
    <div className="find-in-run" data-testid="find-in-run">
      <div className="find-in-run-bar" role="search">
        <input
          type="search"
          className="text-input"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
          placeholder="Find in this run…"
          aria-label="Find in this run"
          maxLength={500}
        />
        <select className="text-input" value={mode} onChange={(e) => setMode(e.target.value as typeof mode)} aria-label="Match">
          {MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
        <span className={found.state.status === 'error' && asked ? 'error-text small' : 'muted small'} data-testid="find-status" role="status">
          {status}
        </span>
        {steps.length > 0 && (
          <>
            <button type="button" className="btn btn-quiet" onClick={() => move(-1)} aria-label="Previous match" title="Previous match (Shift+Enter)">
              ▲
            </button>
            <button type="button" className="btn btn-quiet" onClick={() => move(1)} aria-label="Next match" title="Next match (Enter)">
              ▼
            </button>
            <button type="button" className="link-btn" onClick={() => setListOpen((o) => !o)} aria-expanded={listOpen}>
              {listOpen ? 'Hide list' : 'List all'}
            </button>
          </>
        )}
      </div>
      {listOpen && answer && answer.matches.length > 0 && (
        <ol className="find-in-run-list" data-testid="find-list">
          {answer.matches.map((m, i) => (
            <li key={i} className={m.step !== null && steps[at] === m.step ? 'search-match current' : 'search-match'}>
              {m.step === null ? <span>{matchPlace(m)}</span> : <Link to={stepLink(m.step)}>{matchPlace(m)}</Link>}
              <Snippet match={m} words={answer.words} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
