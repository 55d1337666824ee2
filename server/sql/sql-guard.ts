// Checks a console query before it reaches ClickHouse: one read-only statement (SELECT, WITH,
// SHOW, DESCRIBE, EXPLAIN), no table function that reaches files, URLs or other servers, no
// INTO OUTFILE. ClickHouse's readonly=1 is the second wall; this one gives clear errors. Pure.

export class SqlRejectedError extends Error {
  override readonly name = 'SqlRejectedError';
}

const ALLOWED_FIRST = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN']);

/** Table functions that read or write outside the database (files, network, other engines). */
const OUTSIDE_FUNCTIONS = [
  'file', 'fileCluster', 'url', 'urlCluster', 's3', 's3Cluster', 'gcs', 'oss', 'cosn', 'hdfs', 'hdfsCluster',
  'azureBlobStorage', 'azureBlobStorageCluster', 'remote', 'remoteSecure', 'cluster', 'clusterAllReplicas',
  'mysql', 'postgresql', 'mongodb', 'redis', 'sqlite', 'jdbc', 'odbc', 'executable', 'input', 'iceberg',
  'icebergS3', 'icebergAzure', 'icebergHDFS', 'icebergLocal', 'deltaLake', 'deltaLakeS3', 'deltaLakeAzure',
  'deltaLakeLocal', 'hudi', 'hive', 'paimon', 'dictionary', 'ytsaurus', 'arrowFlight', 'prometheusQuery',
  'timeSeriesData', 'mergeTreeIndex', 'mergeTreeProjection', 'loop',
];
const OUTSIDE_RE = new RegExp(`\\b(${OUTSIDE_FUNCTIONS.join('|')})\\s*\\(`, 'i');

/** Replaces string literals, quoted identifiers and comments with blanks (same length). */
export function maskLiteralsAndComments(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += ' '.repeat(stop - i);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end === -1 ? sql.length : end + 2;
      out += ' '.repeat(stop - i);
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < sql.length && sql[j] !== c) j += sql[j] === '\\' ? 2 : 1;
      const stop = Math.min(sql.length, j + 1);
      // Quoted identifiers keep their name (quotes blanked) so `"file"(...)` is still seen as a call.
      const name = sql.slice(i + 1, Math.min(j, sql.length)).replace(/[^A-Za-z0-9_]/g, ' ');
      out += c === "'" ? ' '.repeat(stop - i) : ` ${name}${j < sql.length ? ' ' : ''}`;
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Returns the statement without a trailing semicolon, or throws SqlRejectedError. */
export function checkConsoleSql(sql: string): string {
  const trimmed = sql.trim().replace(/;\s*$/, '');
  if (!trimmed) throw new SqlRejectedError('the query is empty');
  const masked = maskLiteralsAndComments(trimmed);
  if (masked.includes(';')) throw new SqlRejectedError('send one statement at a time');
  const first = masked.trim().replace(/^\(+\s*/, '').match(/^[A-Za-z]+/)?.[0]?.toUpperCase();
  if (!first || !ALLOWED_FIRST.has(first)) {
    throw new SqlRejectedError(
      `only SELECT, WITH, SHOW, DESCRIBE and EXPLAIN statements can run in the console (got ${first ?? 'nothing'})`,
    );
  }
  const outside = masked.match(OUTSIDE_RE);
  if (outside) {
    throw new SqlRejectedError(`the table function ${outside[1]}() reaches outside the database and is not allowed here`);
  }
  if (/\bINTO\s+OUTFILE\b/i.test(masked)) throw new SqlRejectedError('INTO OUTFILE is not allowed here');
  if (/\bSETTINGS\b/i.test(masked)) throw new SqlRejectedError('SETTINGS clauses are not allowed here; limits are fixed by the server');
  return trimmed;
}
