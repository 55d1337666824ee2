// The Search page's state in the URL (text, mode, field, tool, sort, page) and how a snippet is
// cut into plain and highlighted pieces. The search text lives in `text`, not `q`: `q` is the
// run or task id filter of the Runs page, which links between pages carry along.
import type { SearchMatch } from '../../../schemas/api.js';
import { displayStep } from './step-label.js';

export const SEARCH_MODES = [
  { value: 'words', label: 'Words', hint: 'every word, as a whole word, in any case' },
  { value: 'phrase', label: 'Phrase', hint: 'the words together in this order, in any case' },
  { value: 'substring', label: 'Exact text', hint: 'these characters exactly, case-sensitive' },
  { value: 'regex', label: 'Regex', hint: 'an RE2 regular expression, e.g. (?i)timed? ?out' },
] as const;
export type SearchMode = (typeof SEARCH_MODES)[number]['value'];

export const SEARCH_FIELDS = [
  { value: 'all', label: 'Everywhere' },
  { value: 'action', label: 'Actions' },
  { value: 'observation', label: 'Observations' },
  { value: 'error', label: 'Errors' },
  { value: 'tool_arguments', label: 'Tool arguments' },
  { value: 'tool_output', label: 'Tool output' },
] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number]['value'];

export type SearchSort = 'time' | 'hits';

/** Runs a page of results shows. */
export const SEARCH_PAGE_SIZE = 20;

export interface SearchQuery {
  text: string;
  mode: SearchMode;
  field: SearchField;
  /** Only the tool calls of this tool ('' for any). */
  tool: string;
  sort: SearchSort;
  /** Runs skipped (a multiple of SEARCH_PAGE_SIZE). */
  offset: number;
}

const isMode = (v: string | null): v is SearchMode => SEARCH_MODES.some((m) => m.value === v);
const isField = (v: string | null): v is SearchField => SEARCH_FIELDS.some((f) => f.value === v);

/** The search in the URL (defaults for what is missing or unknown). */
export function searchQueryOf(params: URLSearchParams): SearchQuery {
  const mode = params.get('mode');
  const field = params.get('field');
  const offset = Number(params.get('offset') ?? 0);
  return {
    text: params.get('text') ?? '',
    mode: isMode(mode) ? mode : 'words',
    field: isField(field) ? field : 'all',
    tool: params.get('tool') ?? '',
    sort: params.get('sort') === 'hits' ? 'hits' : 'time',
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
  };
}

/** `prev` (the filters and anything else in the URL) with the search `q` written over it; defaults are left out. */
export function withSearchQuery(prev: URLSearchParams, q: SearchQuery): URLSearchParams {
  const next = new URLSearchParams(prev);
  const put = (k: string, v: string, dflt: string) => (v && v !== dflt ? next.set(k, v) : next.delete(k));
  put('text', q.text.trim(), '');
  put('mode', q.mode, 'words');
  put('field', q.field, 'all');
  put('tool', q.tool.trim(), '');
  put('sort', q.sort, 'time');
  put('offset', String(q.offset), '0');
  return next;
}

/** The API parameters of a search (besides the run filters). */
export function searchApiParams(q: SearchQuery): [string, string][] {
  const out: [string, string][] = [['q', q.text.trim()], ['mode', q.mode], ['field', q.field], ['sort', q.sort], ['limit', String(SEARCH_PAGE_SIZE)]];
  if (q.tool.trim()) out.push(['tool', q.tool.trim()]);
  if (q.offset) out.push(['offset', String(q.offset)]);
  return out;
}

export interface SnippetPiece {
  text: string;
  hit: boolean;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * A snippet in pieces, the matches marked: the first match as the server placed it (in code
 * points), and for a words or phrase search every other whole-word occurrence of the words the
 * engine searched for, in any case (display only: which rows match is the engine's call).
 */
export function snippetPieces(match: Pick<SearchMatch, 'snippet' | 'highlight'>, words: readonly string[] = []): SnippetPiece[] {
  const chars = Array.from(match.snippet);
  const hit = new Array<boolean>(chars.length).fill(false);
  const h = match.highlight;
  if (h && h.start >= 0 && h.length > 0) for (let i = h.start; i < Math.min(chars.length, h.start + h.length); i++) hit[i] = true;
  if (words.length) {
    const lower = chars.map((c) => c.toLowerCase());
    for (const word of words) {
      const w = Array.from(word.toLowerCase());
      if (!w.length) continue;
      for (let i = 0; i + w.length <= lower.length; i++) {
        if (i > 0 && WORD_CHAR.test(chars[i - 1])) continue;
        if (i + w.length < chars.length && WORD_CHAR.test(chars[i + w.length])) continue;
        let same = true;
        for (let j = 0; j < w.length && same; j++) same = lower[i + j] === w[j];
        if (same) for (let j = 0; j < w.length; j++) hit[i + j] = true;
      }
    }
  }
  const pieces: SnippetPiece[] = [];
  for (let i = 0; i < chars.length; i++) {
    const last = pieces[pieces.length - 1];
    if (last && last.hit === hit[i]) last.text += chars[i];
    else pieces.push({ text: chars[i], hit: hit[i] });
  }
  return pieces;
}

const PLACE: Record<string, string> = { action: 'action', observation: 'observation', error: 'error', tool_arguments: 'arguments', tool_output: 'output' };

/** Where a match is: "step 12 · observation", "step 3 · bash · output". */
export function matchPlace(m: Pick<SearchMatch, 'step' | 'source' | 'field' | 'tool'>): string {
  const parts = [m.step === null ? 'no step' : `step ${displayStep(m.step)}`];
  if (m.source === 'tool_call' && m.tool) parts.push(m.tool);
  parts.push(PLACE[m.field] ?? m.field);
  return parts.join(' · ');
}
