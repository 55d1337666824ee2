// Query-string building shared by the API client and links. Pure.

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];

/**
 * Builds "?a=1&b=x&tag=k:v&tag=k2:v2" from an object or a list of pairs. Empty strings, null
 * and undefined are dropped; arrays repeat the name. Returns '' when nothing is left.
 */
export function buildQuery(input: Record<string, QueryValue> | readonly (readonly [string, string])[]): string {
  const params = new URLSearchParams();
  const pairs: [string, QueryValue][] = Array.isArray(input)
    ? (input as readonly (readonly [string, string])[]).map(([k, v]) => [k, v])
    : Object.entries(input as Record<string, QueryValue>);
  for (const [key, value] of pairs) {
    if (value === null || value === undefined || value === '') continue;
    if (Array.isArray(value)) {
      for (const v of value) if (v !== '' && v !== null && v !== undefined) params.append(key, String(v));
    } else {
      params.append(key, String(value));
    }
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}
