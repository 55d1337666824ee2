// A match's snippet with the match marked (snippetPieces).
import type { SearchMatch } from '../../../schemas/api.js';
import { snippetPieces } from '../lib/search-view.js';

export function Snippet({ match, words }: { match: Pick<SearchMatch, 'snippet' | 'highlight'>; words: readonly string[] }) {
  return (
    <span className="search-snippet mono" data-testid="search-snippet">
      {snippetPieces(match, words).map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </span>
  );
}
