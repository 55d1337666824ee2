// Sends batches to POST /v1/events (a JSON array, gzip optional) and reads its answer:
// 200/207/400-with-rejected are answers (per-event errors counted), 408/425/429/5xx and network
// errors are retried (503's Retry-After honoured), 413 asks for a smaller batch, the rest fail.
import { parseRetryAfter } from './backoff.js';
import type { TrajscopeEvent } from './events.js';
import { TransportError, type DeliveryResult, type Transport } from './transport.js';

export interface HttpTransportOptions {
  /** The server's base URL, e.g. http://127.0.0.1:7300 (the path /v1/events is added). */
  url: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Compress request bodies with gzip (default false: cheaper on loopback, worth it across networks). */
  gzip?: boolean;
  /**
   * When the server answers: 'stored' (the events are in storage) or 'buffered' (validated and
   * buffered, stored within the server's batch age; faster, but a server crash loses them).
   * Default: the server's setting (TRAJSCOPE_INGEST_ACK, itself 'stored' by default).
   */
  ack?: 'stored' | 'buffered';
  /** Give up on one request after this long and retry it (default 60 s; the server waits up to 30 s for storage). */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

const RETRYABLE = new Set([408, 425, 429]);

export class HttpTransport implements Transport {
  private readonly endpoint: string;

  constructor(private readonly o: HttpTransportOptions) {
    const url = new URL('/v1/events', o.url);
    if (o.ack) url.searchParams.set('ack', o.ack);
    this.endpoint = url.toString();
  }

  async send(events: readonly TrajscopeEvent[], signal: AbortSignal): Promise<DeliveryResult> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...this.o.headers };
    if (this.o.apiKey) headers.authorization = `Bearer ${this.o.apiKey}`;
    const text = JSON.stringify(events);
    let body: string | ArrayBuffer = text;
    if (this.o.gzip) {
      body = await gzip(text);
      headers['content-encoding'] = 'gzip';
    }
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.o.timeoutMs ?? 60_000);
    const onAbort = () => timeout.abort();
    signal.addEventListener('abort', onAbort);
    let res: Response;
    let answer: { accepted?: unknown; rejected?: unknown; error?: { message?: unknown } } | null;
    try {
      res = await fetch(this.endpoint, { method: 'POST', headers, body, signal: timeout.signal });
      answer = await res.json().catch(() => null);
    } catch (err) {
      const why = timeout.signal.aborted && !signal.aborted ? 'timed out' : (err as Error).message;
      throw new TransportError(`cannot reach ${this.endpoint}: ${why}`, true, { cause: err });
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
    const rejected = Array.isArray(answer?.rejected) ? (answer.rejected as DeliveryResult['rejected']) : undefined;
    if (res.ok || (res.status === 400 && rejected)) {
      return { accepted: typeof answer?.accepted === 'number' ? answer.accepted : events.length - (rejected?.length ?? 0), rejected: rejected ?? [] };
    }
    const message = `${this.endpoint} answered ${res.status}${typeof answer?.error?.message === 'string' ? `: ${answer.error.message}` : ''}`;
    if (res.status === 413) throw new TransportError(message, false, { status: 413, tooLarge: true });
    const retryable = res.status >= 500 || RETRYABLE.has(res.status);
    throw new TransportError(message, retryable, { status: res.status, retryAfterMs: parseRetryAfter(res.headers.get('retry-after'), Date.now()) });
  }
}

/** gzip with the platform's CompressionStream (Node 18+, browsers, Deno, Bun). */
async function gzip(text: string): Promise<ArrayBuffer> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Response(stream).arrayBuffer();
}
