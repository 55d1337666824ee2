// ClickHouse as a CodeMirror SQL dialect: standard keywords plus ClickHouse's own (FINAL,
// PREWHERE, ARRAY JOIN, LIMIT BY, …), its types and the functions analysts use most, so they
// are highlighted and completed.
import { SQLDialect } from '@codemirror/lang-sql';

const KEYWORDS = [
  'select distinct from where group by having order asc desc limit offset with as on using join inner left right full outer cross',
  'union all except intersect and or not in is null like ilike between case when then else end exists any some',
  'final prewhere sample array global local settings format totals cube rollup interval any anti semi asof paste',
  'fill step nulls first last ties describe desc show tables databases explain syntax ast plan pipeline estimate',
  'insert into values create table view drop alter update delete truncate rename set',
  'second minute hour day week month quarter year',
].join(' ');

const TYPES = [
  'UInt8 UInt16 UInt32 UInt64 UInt128 UInt256 Int8 Int16 Int32 Int64 Int128 Int256 Float32 Float64 BFloat16',
  'Decimal Decimal32 Decimal64 Decimal128 Decimal256 Bool String FixedString UUID Date Date32 DateTime DateTime64',
  'Enum8 Enum16 Array Tuple Map Nullable LowCardinality JSON IPv4 IPv6',
].join(' ');

const FUNCTIONS = [
  'count countIf countDistinct sum sumIf avg avgIf min minIf max maxIf any anyLast argMin argMax uniq uniqExact',
  'uniqIf uniqExactIf quantile quantiles quantileExact quantileTDigest median stddevPop stddevSamp varPop corr',
  'groupArray groupUniqArray groupArraySorted topK histogram sumMap',
  'now now64 today yesterday toDate toDateTime toDateTime64 toStartOfHour toStartOfDay toStartOfWeek',
  'toStartOfMonth toStartOfInterval toStartOfFifteenMinutes toYYYYMM toHour toDayOfWeek dateDiff dateAdd',
  'dateSub addDays addHours subtractDays formatDateTime parseDateTimeBestEffort toUnixTimestamp fromUnixTimestamp',
  'toString toInt32 toInt64 toUInt32 toUInt64 toFloat64 toDecimal64 toTypeName CAST',
  'round floor ceil abs greatest least intDiv modulo exp log sqrt pow',
  'if multiIf coalesce ifNull nullIf isNull isNotNull assumeNotNull',
  'length lower upper trim substring concat position positionCaseInsensitive replaceAll replaceRegexpAll',
  'extract extractAll match like splitByChar splitByString startsWith endsWith leftPad format',
  'JSONExtract JSONExtractString JSONExtractInt JSONExtractFloat JSONExtractRaw JSONHas JSONLength',
  'arrayJoin arrayMap arrayFilter arrayExists arraySum arrayCount has hasAny indexOf length range tuple',
  'runningDifference neighbor row_number rank dense_rank lagInFrame leadInFrame',
].join(' ');

export const ClickHouseSQL = SQLDialect.define({
  keywords: KEYWORDS.toLowerCase(),
  types: TYPES.toLowerCase(),
  builtin: FUNCTIONS.toLowerCase(),
  backslashEscapes: true,
  identifierQuotes: '`"',
  // Completed names are inserted as written (no quoting of names with capitals).
  caseInsensitiveIdentifiers: true,
});

const PROPER_CASE = new Map([...TYPES.split(/\s+/), ...FUNCTIONS.split(/\s+/)].map((w) => [w.toLowerCase(), w]));

/**
 * lang-sql lists the dialect's words in lower (or upper) case; functions and types complete
 * in ClickHouse's own spelling (countIf, DateTime64), keywords in upper case.
 */
export function keywordCompletion(label: string, type: string): { label: string; type: string; boost?: number } {
  const proper = PROPER_CASE.get(label.toLowerCase());
  if (type === 'keyword' || !proper) return { label: label.toUpperCase(), type: 'keyword', boost: -1 };
  return { label: proper, type: type === 'type' ? 'type' : 'function', boost: -1 };
}
