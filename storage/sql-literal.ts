// SQL literals for the few places where a value cannot be a query parameter (a setting's value,
// a statement that must not wait behind parameterized ones). Pure.

/** A ClickHouse string literal (quotes and backslashes escaped). */
export function sqlString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
