// The Search page's URL state and snippet highlighting (web/src/lib/search-view.ts).
import { describe, expect, it } from 'vitest';
import { matchPlace, searchApiParams, searchQueryOf, snippetPieces, withSearchQuery } from '../../web/src/lib/search-view.js';

describe('search URL state', () => {
  it('reads defaults for what is missing or unknown, and writes back only what differs from them', () => {
    const q = searchQueryOf(new URLSearchParams('text=timeout&mode=nope&field=tool_output&offset=-3&model=m1'));
    expect(q).toEqual({ text: 'timeout', mode: 'words', field: 'tool_output', tool: '', sort: 'time', offset: 0 });
    const next = withSearchQuery(new URLSearchParams('model=m1&q=run-1'), { ...q, mode: 'regex', offset: 40 });
    // The filters (model, the runs' id filter q) stay; the search text is `text`, never `q`.
    expect(next.toString()).toBe('model=m1&q=run-1&text=timeout&mode=regex&field=tool_output&offset=40');
    expect(withSearchQuery(next, { ...q, text: '  ', field: 'all' }).toString()).toBe('model=m1&q=run-1');
  });

  it('asks the API for the text as q, a page of 20 runs, and the tool only when named', () => {
    expect(searchApiParams({ text: ' git log ', mode: 'phrase', field: 'all', tool: '', sort: 'hits', offset: 20 })).toEqual([
      ['q', 'git log'], ['mode', 'phrase'], ['field', 'all'], ['sort', 'hits'], ['limit', '20'], ['offset', '20'],
    ]);
    expect(searchApiParams({ text: 'x', mode: 'words', field: 'all', tool: 'bash', sort: 'time', offset: 0 })).toContainEqual(['tool', 'bash']);
  });
});

describe('snippet pieces', () => {
  const marked = (pieces: { text: string; hit: boolean }[]) => pieces.map((p) => (p.hit ? `[${p.text}]` : p.text)).join('');

  it('marks the first match where the server placed it, in code points', () => {
    expect(marked(snippetPieces({ snippet: '…🙂 Timeout waiting', highlight: { start: 3, length: 7 } }))).toBe('…🙂 [Timeout] waiting');
    expect(marked(snippetPieces({ snippet: 'no place', highlight: null }))).toBe('no place');
    expect(marked(snippetPieces({ snippet: 'short', highlight: { start: 2, length: 50 } }))).toBe('sh[ort]');
  });

  it('marks every whole-word occurrence of the words searched for, in any case, not inside other words', () => {
    expect(marked(snippetPieces({ snippet: 'Cat concatenate cat-food CAT', highlight: null }, ['cat']))).toBe('[Cat] concatenate [cat]-food [CAT]');
    expect(marked(snippetPieces({ snippet: 'Straße strasse', highlight: null }, ['straße']))).toBe('[Straße] strasse');
    expect(marked(snippetPieces({ snippet: 'git log --all', highlight: { start: 0, length: 13 } }, ['git', 'log', 'all']))).toBe('[git log --all]');
  });
});

describe('match place', () => {
  it('names the step, the tool of a call, and the field', () => {
    // Steps as shown, from 1 (the stored index is 0-based).
    expect(matchPlace({ step: 12, source: 'step', field: 'observation', tool: '' })).toBe('step 13 · observation');
    expect(matchPlace({ step: 3, source: 'tool_call', field: 'tool_arguments', tool: 'bash' })).toBe('step 4 · bash · arguments');
    expect(matchPlace({ step: null, source: 'tool_call', field: 'error', tool: 'http' })).toBe('no step · http · error');
  });
});
