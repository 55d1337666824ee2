// One OpenTelemetry span as the mapping reads it, whatever the wire encoding (OTLP/JSON or
// protobuf): ids as lowercase hex, times in epoch nanoseconds as decimal strings (they do not
// fit a double), attribute values flattened to JSON values. Pure.

export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };

/** OTLP status codes: 0 unset, 1 ok, 2 error. */
export type StatusCode = 0 | 1 | 2;

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  /** The parent is in another process (OTLP span flags); the span is the top of this trace part. */
  parentRemote?: boolean;
  name: string;
  /** Epoch nanoseconds, decimal. */
  startNs: string;
  endNs: string;
  attributes: Record<string, AttrValue>;
  status: { code: StatusCode; message: string };
  /** Span events (e.g. `exception`, legacy `gen_ai.choice`). */
  events: { name: string; timeNs: string; attributes: Record<string, AttrValue> }[];
  /** The attributes of the resource that sent the span that the mapping uses (service.name...). */
  resource: Record<string, AttrValue>;
}

/** Epoch milliseconds (fractional) of a decimal nanosecond time; 0 when absent or invalid. */
export function nsToMs(ns: string): number {
  if (!/^\d+$/.test(ns)) return 0;
  // Split so that the integer part stays exact: ms = floor(ns / 1e6) + rest / 1e6.
  const whole = ns.length > 6 ? Number(ns.slice(0, -6)) : 0;
  const rest = Number(ns.slice(-6));
  return whole + rest / 1e6;
}

/** Compares two decimal nanosecond times (no precision lost). */
export function compareNs(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
