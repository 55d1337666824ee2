// Full-text search over the steps (action, observation, error_message) and tool calls (arguments,
// output, error_message) of every run (GET /api/v1/search): the matching runs a page at a time,
// with their hit counts and their first matches, each with a snippet cut in SQL. Identifiers are
// fixed here; every value is a {name:Type} parameter. Words and phrases are looked up in the text
// indexes (0016_text_indexes.sql). Rows are read without FINAL, which would merge every granule of
// the tables and cost 6 times the lookup: a re-delivered step or call counts once all the same
// (counted by its key, listed once). A step replaced by a later version with another text (not a re-delivery)
// can still be found by its former text until the engine merges the two versions.
import type { RunFindAnswer, SearchAnswer, SearchMatch, SearchRun } from '../../schemas/api.js';
import { ApiError } from '../../schemas/api-error.js';
import type { QueryParams, Storage } from '../gateway.js';
import { EMPTY_FILTERS, narrowsRuns, runPairsIn, type RunFilters } from './run-filters.js';
import { summarySql } from './run-summary-sql.js';
import { isoTime, num, numOrNull, runStepPath } from './row-conversions.js';

export const SEARCH_MODES = ['words', 'phrase', 'substring', 'regex'] as const;
export const SEARCH_FIELDS = ['all', 'action', 'observation', 'error', 'tool_arguments', 'tool_output'] as const;
export const SEARCH_SORTS = ['time', 'hits'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
export type SearchField = (typeof SEARCH_FIELDS)[number];

export interface SearchOptions {
  text: string;
  mode: SearchMode;
  field: SearchField;
  /** Only tool calls of this tool. */
  tool?: string;
  sort: (typeof SEARCH_SORTS)[number];
  /** A words search's words, as the engine cut them (set by searchRuns). */
  words?: string[];
  limit: number;
  offset: number;
}

/** Matches shown per run. */
export const MATCHES_PER_RUN = 5;
/** Characters of a snippet, and of them before the match. */
const SNIPPET_CHARS = 200;
const SNIPPET_BEFORE = 60;

interface Column {
  /** The name of the field in the answer. */
  field: string;
  column: string;
}

/** The columns searched in each table for a `field` (none: the table is not searched). */
export function searchedColumns(field: SearchField, tool: string | undefined): { steps: Column[]; calls: Column[] } {
  const steps: Column[] = [
    { field: 'action', column: 'action' },
    { field: 'observation', column: 'observation' },
    { field: 'error', column: 'error_message' },
  ];
  const calls: Column[] = [
    { field: 'tool_arguments', column: 'arguments' },
    { field: 'tool_output', column: 'output' },
    { field: 'error', column: 'error_message' },
  ];
  const keep = (c: Column) => field === 'all' || c.field === field;
  return { steps: tool === undefined ? steps.filter(keep) : [], calls: calls.filter(keep) };
}

/** A match condition on `column` and the 1-based character position of its first match. */
function matcher(o: SearchOptions, params: QueryParams): { cond: (col: string) => string; pos: (col: string) => string; len: (col: string) => string } {
  params.s_text = o.text;
  if (o.mode === 'words') {
    // The words as the engine's tokens() cut the question (wordsOf), lower-cased as the text
    // indexes hold them (0016_text_indexes.sql): hasAllTokens reads the index, not the texts.
    params.s_words = o.words ?? [];
    return {
      cond: (col) => `hasAllTokens(${col}, {s_words:Array(String)})`,
      pos: (col) => `positionCaseInsensitiveUTF8(${col}, {s_words:Array(String)}[1])`,
      len: () => `lengthUTF8({s_words:Array(String)}[1])`,
    };
  }
  if (o.mode === 'phrase') {
    // The index finds the rows holding every word of the phrase; the phrase itself is then
    // looked for in them (a phrase of no word, e.g. punctuation only, reads every text).
    const words = o.words ?? [];
    params.s_words = words;
    const pos = (col: string) => `positionCaseInsensitiveUTF8(${col}, {s_text:String})`;
    const len = () => `lengthUTF8({s_text:String})`;
    return { cond: (col) => (words.length ? `(hasAllTokens(${col}, {s_words:Array(String)}) AND ${pos(col)} > 0)` : `${pos(col)} > 0`), pos, len };
  }
  if (o.mode === 'substring') {
    return { cond: (col) => `position(${col}, {s_text:String}) > 0`, pos: (col) => `positionUTF8(${col}, {s_text:String})`, len: () => `lengthUTF8({s_text:String})` };
  }
  return {
    cond: (col) => `match(${col}, {s_text:String})`,
    pos: (col) => `positionUTF8(${col}, regexpExtract(${col}, {s_text:String}, 0))`,
    len: (col) => `lengthUTF8(regexpExtract(${col}, {s_text:String}, 0))`,
  };
}

/**
 * The matching steps and tool calls as rows (project, run_id, step, source, tool, call_id, ts
 * and, with `details`, field, field_rank, text, pos and len). `keys`: a condition on (project,
 * run_id) narrowing the runs. With `details` true a step or call (delivered twice, or matching in
 * several fields) is listed once; without, or with 'rows', a row comes for each field it matches
 * in: count them with HIT_KEY.
 */
export function matchedSql(o: SearchOptions, f: RunFilters, params: QueryParams, keys: string, details: boolean | 'rows'): string {
  const m = matcher(o, params);
  const cols = searchedColumns(o.field, o.tool);
  const where: string[] = [];
  if (f.project.length) {
    // In WHERE: as PREWHERE beside a text index read, the engine loses the column (26.7: NOT_FOUND_COLUMN_IN_BLOCK).
    params.s_project = f.project;
    where.push('project IN {s_project:Array(String)}');
  }
  if (f.from !== undefined) {
    params.s_from = f.from;
    where.push('ts >= fromUnixTimestamp64Milli({s_from:Int64})');
  }
  if (f.to !== undefined) {
    params.s_to = f.to;
    where.push('ts < fromUnixTimestamp64Milli({s_to:Int64})');
  }
  if (keys) where.push(keys);
  // A phrase, a substring or a regex reads texts: one query per column, each reading its own
  // column, and (phrase) only the granules its index points to (an OR of the columns read every
  // column of the granules any index points to: a third longer). Words read no text: one query a
  // table, its columns' index lookups ORed (six queries cost a word search a third more).
  const perColumn = o.mode !== 'words';
  const branches = (table: string, columns: Column[], head: string, extra: string[]) => {
    if (!columns.length) return [];
    if (!perColumn) {
      const pick = (what: (c: Column) => string) => (columns.length === 1 ? what(columns[0]) : `multiIf(${columns.map((c, i) => (i < columns.length - 1 ? `${m.cond(c.column)}, ${what(c)}` : what(c))).join(', ')})`);
      const detail = details ? `, ${pick((c) => `'${c.field}'`)} AS field, 0 AS field_rank, ${pick((c) => c.column)} AS text, ${pick((c) => m.pos(c.column))} AS pos, ${pick((c) => m.len(c.column))} AS len` : '';
      return [`SELECT ${head}, ts${detail} FROM ${table} WHERE ${[`(${columns.map((c) => m.cond(c.column)).join(' OR ')})`, ...extra, ...where].join(' AND ')}`];
    }
    return columns.map((c, rank) => {
      const detail = details ? `, '${c.field}' AS field, ${rank} AS field_rank, ${c.column} AS text, ${m.pos(c.column)} AS pos, ${m.len(c.column)} AS len` : '';
      return `SELECT ${head}, ts${detail} FROM ${table} WHERE ${[m.cond(c.column), ...extra, ...where].join(' AND ')}`;
    });
  };
  const toolCond: string[] = [];
  if (o.tool !== undefined) {
    params.s_tool = o.tool;
    toolCond.push('tool = {s_tool:String}');
  }
  const union = [
    ...branches('steps', cols.steps, `project, run_id, toNullable(step) AS step, 'step' AS source, '' AS tool, '' AS call_id`, []),
    ...branches('tool_calls', cols.calls, `project, run_id, step, 'tool_call' AS source, toString(tool) AS tool, call_id`, toolCond),
  ].join('\nUNION ALL\n');
  // Listed: each step or call once, by the first of its fields that matched.
  return details === true ? `SELECT * FROM (${union}) ORDER BY field_rank LIMIT 1 BY project, run_id, source, step, call_id` : union;
}

/**
 * The words of a text as the text indexes cut and hold them: the engine's tokens(text,
 * 'splitByNonAlpha') of the lower-cased text, each once (0016_text_indexes.sql).
 */
async function wordsOf(storage: Storage, text: string): Promise<string[]> {
  const [r] = await storage.query<{ words: string[] }>(`SELECT arrayDistinct(tokens(lowerUTF8({text:String}), 'splitByNonAlpha')) AS words`, { text });
  return (r?.words ?? []).map(String);
}

/** Engine error of a regular expression it cannot compile: a 400 that says why. */
async function checkPattern(storage: Storage, pattern: string): Promise<void> {
  try {
    await storage.query(`SELECT match('', {re:String}) AS m`, { re: pattern });
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (!e.code) throw err;
    const reason = String(e.message ?? err).split('. Look at https://')[0];
    throw new ApiError(400, 'bad_regex', `q: not a regular expression the engine can use: ${reason}`);
  }
}

/** The search made ready: a regex the engine can compile, the words of a words or phrase search, columns to search. */
async function prepared(storage: Storage, o: SearchOptions): Promise<SearchOptions> {
  if (o.mode === 'regex') await checkPattern(storage, o.text);
  if (o.mode === 'words' || o.mode === 'phrase') {
    const words = await wordsOf(storage, o.text);
    if (o.mode === 'words' && !words.length) {
      throw new ApiError(400, 'bad_request', 'q: no word to search for (words are letters and digits; use mode=substring for other characters)');
    }
    o = { ...o, words };
  }
  const cols = searchedColumns(o.field, o.tool);
  if (!cols.steps.length && !cols.calls.length) {
    throw new ApiError(400, 'bad_request', `field: ${o.field} is a field of steps, and tool= searches tool calls only`);
  }
  return o;
}

/** A run's key in the maps of a page: its project and id. */
const runKey = (r: Record<string, unknown>) => `${String(r.project)}\u0000${String(r.run_id)}`;

/** One matching step or tool call of a run, however often it was delivered: count hits with uniqExact(HIT_KEY). */
const HIT_KEY = `source, if(source = 'step', toString(step), call_id)`;

/** Columns of a match with its snippet (around its first match) and where the match is in it, over matchedSql(details). */
const MATCH_COLUMNS = `project, run_id, step, source, tool, call_id, field,
       greatest(1, toInt64(pos) - {s_before:UInt32}) AS st,
       concat(if(st > 1, '…', ''), substringUTF8(text, st, {s_chars:UInt32}), if(st + {s_chars:UInt32} <= lengthUTF8(text), '…', '')) AS snippet,
       toInt64(pos) - st + if(st > 1, 1, 0) AS hl_start, least(toInt64(len), {s_chars:UInt32} - (toInt64(pos) - st)) AS hl_length`;
const SNIPPET_PARAMS = { s_chars: SNIPPET_CHARS, s_before: SNIPPET_BEFORE };

function matchOf(r: Record<string, unknown>): SearchMatch {
  const step = numOrNull(r.step);
  return {
    step,
    source: r.source === 'tool_call' ? 'tool_call' : 'step',
    field: String(r.field),
    tool: String(r.tool),
    call_id: String(r.call_id),
    snippet: String(r.snippet),
    highlight: num(r.hl_length) > 0 && num(r.hl_start) >= 0 ? { start: num(r.hl_start), length: num(r.hl_length) } : null,
    link: runStepPath(String(r.run_id), step),
  };
}

export async function searchRuns(storage: Storage, filters: RunFilters, o: SearchOptions): Promise<SearchAnswer> {
  o = await prepared(storage, o);
  // The run filters but the window (it applies to the steps' and calls' ts) and q (the search text here).
  const runFilters: RunFilters = { ...filters, from: undefined, to: undefined, q: undefined };
  const params: QueryParams = {};
  let keys = '';
  if (narrowsRuns(runFilters)) keys = `(project, run_id) IN (SELECT project, run_id FROM (${await summarySql(storage, runFilters, params)}))`;
  params.s_limit = o.limit;
  params.s_offset = o.offset;
  // A phrase or a substring reads the texts anyway: their first matches (with snippets) come in
  // the same pass (firstMatchesSql; a phrase about 1.3x faster at 100,000 runs). Words read only the
  // indexes, and a regex's snippets cost a second run of the regex on every hit (1.5x slower in
  // one pass): their page's matches are read apart, for the page's runs alone (pageMatches).
  const readsText = o.mode === 'phrase' || o.mode === 'substring';
  const matched = matchedSql(o, filters, params, keys, readsText ? 'rows' : false);
  const perRun = readsText
    ? firstMatchesSql(matched, params)
    : `SELECT project, run_id, uniqExact(${HIT_KEY}) AS hits FROM (${matched}) GROUP BY project, run_id`;
  const order = o.sort === 'hits' ? 'hits DESC, started_at DESC, project, run_id' : 'started_at DESC, project, run_id';
  const runsPre = filters.project.length ? 'PREWHERE project IN {s_project:Array(String)}' : '';
  const page = await storage.query<Record<string, unknown>>(
    `SELECT project, run_id, hits, ${readsText ? 'firsts, ' : ''}count() OVER () AS total_runs, sum(hits) OVER () AS total_hits
     FROM (${perRun}) AS h
     LEFT JOIN (SELECT project, run_id, ifNull(min(started_at), min(first_event_at)) AS started_at FROM runs ${runsPre} GROUP BY project, run_id) AS r
       USING (project, run_id)
     ORDER BY ${order}
     LIMIT {s_limit:UInt32} OFFSET {s_offset:UInt32}`,
    params,
  );
  let totalRuns = page.length ? num(page[0].total_runs) : 0;
  let totalHits = page.length ? num(page[0].total_hits) : 0;
  if (!page.length && o.offset > 0) {
    const t = await storage.query<Record<string, unknown>>(
      `SELECT uniqExact(project, run_id) AS runs, uniqExact(project, run_id, ${HIT_KEY}) AS hits FROM (${matched})`,
      params,
    );
    totalRuns = num(t[0]?.runs);
    totalHits = num(t[0]?.hits);
  }
  const next_offset = o.offset + page.length < totalRuns ? o.offset + page.length : null;
  const words = o.words ?? [];
  if (!page.length) return { total_runs: totalRuns, total_hits: totalHits, words, runs: [], next_offset };

  const pageProjects = page.map((r) => String(r.project));
  const pageRuns = page.map((r) => String(r.run_id));
  const [matches, fields] = await Promise.all([
    readsText ? firstMatchesOf(page) : pageMatches(storage, o, filters, pageProjects, pageRuns),
    pageRunFields(storage, pageProjects, pageRuns),
  ]);
  const runs: SearchRun[] = page.map((r) => {
    const k = runKey(r);
    const s = fields.get(k);
    return {
      run_id: String(r.run_id),
      project: String(r.project),
      task_id: s ? String(s.task_id ?? '') : '',
      status: s ? String(s.status ?? '') : '',
      model: s ? String(s.model ?? '') : '',
      started_at: s ? isoTime(s.started_at) : null,
      hits: num(r.hits),
      matches: matches.get(k) ?? [],
    };
  });
  return { total_runs: totalRuns, total_hits: totalHits, words, runs, next_offset };
}

/** Fields of a first match, in the order firstMatchesSql sorts and gives them. */
const FIRST_FIELDS = ['order', 'source', 'ts', 'call_id', 'step', 'field', 'tool', 'snippet', 'hl_start', 'hl_length'] as const;

/**
 * Per run over matchedSql(…, 'rows'): its hits (a step or call matching in several fields, or
 * delivered twice, counts once, by the first of its fields that matched) and its first
 * MATCHES_PER_RUN matches by step, with their snippets, as `firsts`.
 */
function firstMatchesSql(matchedRows: string, params: QueryParams): string {
  Object.assign(params, SNIPPET_PARAMS, { s_per_run: MATCHES_PER_RUN });
  return `SELECT project, run_id, count() AS hits, groupArraySorted({s_per_run:UInt32})(m) AS firsts
     FROM (SELECT project, run_id,
                  argMin((ifNull(step, 4294967295), source, ts, call_id, step, field, tool, snippet, hl_start, hl_length), field_rank) AS m
           FROM (SELECT ${MATCH_COLUMNS}, ts, field_rank FROM (${matchedRows}))
           GROUP BY project, run_id, ${HIT_KEY})
     GROUP BY project, run_id`;
}

/** The first matches of each run of a page, from its `firsts` (firstMatchesSql). */
function firstMatchesOf(page: Record<string, unknown>[]): Map<string, SearchMatch[]> {
  const out = new Map<string, SearchMatch[]>();
  for (const r of page) {
    const firsts = (r.firsts as unknown[][]).map((t) => ({ run_id: r.run_id, ...Object.fromEntries(FIRST_FIELDS.map((k, i) => [k, t[i]])) }));
    out.set(runKey(r), firsts.map(matchOf));
  }
  return out;
}

/** The first matches (by step) of each run of a page, with their snippets. */
async function pageMatches(storage: Storage, o: SearchOptions, f: RunFilters, projects: string[], runIds: string[]): Promise<Map<string, SearchMatch[]>> {
  const params: QueryParams = { pg_r: runIds, s_per_run: MATCHES_PER_RUN, ...SNIPPET_PARAMS };
  // Only the page's runs: their projects and run ids narrow the key ranges read (a run of the
  // same id in another of the page's projects is read too, and left out: the answer is keyed by
  // project and run).
  const scoped: RunFilters = { ...f, project: [...new Set(projects)] };
  const matched = matchedSql(o, scoped, params, `run_id IN {pg_r:Array(String)}`, true);
  const rows = await storage.query<Record<string, unknown>>(
    `SELECT ${MATCH_COLUMNS}
     FROM (${matched})
     ORDER BY project, run_id, ifNull(step, 4294967295), source, ts, call_id
     LIMIT {s_per_run:UInt32} BY project, run_id`,
    params,
  );
  const out = new Map<string, SearchMatch[]>();
  for (const r of rows) {
    const k = runKey(r);
    const list = out.get(k) ?? [];
    list.push(matchOf(r));
    out.set(k, list);
  }
  return out;
}

/**
 * Find in one run (GET /api/v1/runs/:run_id/find): its matching steps and tool calls in step
 * order, the first `o.limit` of them with their snippets, and how many there are in all.
 */
export async function findInRun(storage: Storage, project: string, runId: string, o: SearchOptions): Promise<RunFindAnswer> {
  o = await prepared(storage, o);
  const params: QueryParams = { f_run: runId, s_limit: o.limit, ...SNIPPET_PARAMS };
  const matched = matchedSql(o, { ...EMPTY_FILTERS, project: [project] }, params, 'run_id = {f_run:String}', true);
  const rows = await storage.query<Record<string, unknown>>(
    `SELECT ${MATCH_COLUMNS}, count() OVER () AS total
     FROM (${matched})
     ORDER BY ifNull(step, 4294967295), source, ts, call_id
     LIMIT {s_limit:UInt32}`,
    params,
  );
  return { run_id: runId, project, total: rows.length ? num(rows[0].total) : 0, words: o.words ?? [], matches: rows.map(matchOf) };
}

/** Task, status, model and start of the page's runs, from the shared run summary. */
async function pageRunFields(storage: Storage, projects: string[], runIds: string[]): Promise<Map<string, Record<string, unknown>>> {
  const params: QueryParams = { pg_p: projects, pg_r: runIds };
  const summary = await summarySql(storage, { ...EMPTY_FILTERS, project: [...new Set(projects)] }, params, [...new Set(runIds)]);
  const rows = await storage.query<Record<string, unknown>>(
    `SELECT project, run_id, task_id, status, model, started_at FROM (${summary}) WHERE ${runPairsIn('pg_p', 'pg_r')}`,
    params,
  );
  return new Map(rows.map((r) => [runKey(r), r]));
}
