// The Search page's form: the text, how to match it, where and in which tool. Typing edits a
// draft; Enter (or the button) runs the search, and a change of mode, field or tool re-runs it.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { SEARCH_FIELDS, SEARCH_MODES, type SearchQuery } from '../lib/search-view.js';

export function SearchForm({ query, onSearch }: { query: SearchQuery; onSearch: (q: SearchQuery) => void }) {
  const [text, setText] = useState(query.text);
  const [tool, setTool] = useState(query.tool);
  const input = useRef<HTMLInputElement>(null);
  // The URL changed under the form (back, a link): show what is searched.
  useEffect(() => setText(query.text), [query.text]);
  useEffect(() => setTool(query.tool), [query.tool]);
  useEffect(() => input.current?.focus(), []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSearch({ ...query, text, tool, offset: 0 });
  };
  const mode = SEARCH_MODES.find((m) => m.value === query.mode) ?? SEARCH_MODES[0];
  return (
    <form className="card search-form" role="search" onSubmit={submit}>
      <div className="search-form-row">
        <input
          ref={input}
          type="search"
          className="text-input search-form-text"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Search every step and tool call…"
          aria-label="Search text"
          maxLength={500}
          data-testid="search-text"
        />
        <button type="submit" className="btn btn-primary" disabled={!text.trim()}>
          Search
        </button>
      </div>
      <div className="search-form-row search-form-options">
        <div className="segmented" role="group" aria-label="Match">
          {SEARCH_MODES.map((m) => (
            <button
              key={m.value}
              type="button"
              className={query.mode === m.value ? 'active' : undefined}
              aria-pressed={query.mode === m.value}
              title={m.hint}
              onClick={() => onSearch({ ...query, text, tool, mode: m.value, offset: 0 })}
            >
              {m.label}
            </button>
          ))}
        </div>
        <label className="search-form-label">
          in
          <select className="text-input" value={query.field} onChange={(e) => onSearch({ ...query, text, tool, field: e.target.value as SearchQuery['field'], offset: 0 })} aria-label="Search in">
            {SEARCH_FIELDS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
        <label className="search-form-label">
          tool
          <input
            type="text"
            className="text-input search-form-tool"
            value={tool}
            onChange={(e) => setTool(e.target.value)}
            onBlur={() => tool.trim() !== query.tool && text.trim() && onSearch({ ...query, text, tool, offset: 0 })}
            placeholder="any"
            aria-label="Only tool calls of the tool"
          />
        </label>
        <span className="search-form-hint muted">{mode.hint}</span>
      </div>
    </form>
  );
}
