// Splits a request body into event values: one JSON event, a JSON array, or NDJSON.
// A line that is not JSON becomes a per-event error; the other lines still count. Pure.

export type ParsedItem = { ok: true; value: unknown } | { ok: false; error: string };

export class BodyParseError extends Error {
  override readonly name = 'BodyParseError';
}

export function parseEventsBody(text: string, ndjson: boolean): ParsedItem[] {
  const trimmed = text.trim();
  if (!trimmed) throw new BodyParseError('the body is empty; send a JSON event, a JSON array or NDJSON');
  if (!ndjson) {
    try {
      const value: unknown = JSON.parse(trimmed);
      return Array.isArray(value) ? value.map((v) => ({ ok: true, value: v })) : [{ ok: true, value }];
    } catch (err) {
      // A body of several lines that is not one JSON document is read as NDJSON.
      if (!trimmed.includes('\n')) throw new BodyParseError(`the body is not valid JSON: ${(err as Error).message}`);
    }
  }
  return parseLines(trimmed);
}

function parseLines(text: string): ParsedItem[] {
  const items: ParsedItem[] = [];
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (!l) continue;
    try {
      items.push({ ok: true, value: JSON.parse(l) });
    } catch (err) {
      items.push({ ok: false, error: `invalid JSON: ${(err as Error).message}` });
    }
  }
  return items;
}
