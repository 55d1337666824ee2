// Typed errors of the HTTP API and the one middleware that maps every error to
// {"error": {"code", "message"}} with the right status. Never a stack trace to a client.
import type { ErrorRequestHandler } from 'express';
import { BackpressureError } from '../ingest/batch-writer.js';
import { StorageError } from '../storage/gateway.js';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found`);

export function errorMiddleware(log: (msg: string, err: unknown) => void): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const e = toApiError(err);
    if (e.status >= 500) log(`request failed: ${e.message}`, err);
    for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
    res.status(e.status).json({ error: { code: e.code, message: e.message } });
  };
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof BackpressureError) {
    return new ApiError(503, 'saturated', err.message, { 'Retry-After': String(err.retryAfterSeconds) });
  }
  if (err instanceof StorageError) return new ApiError(503, 'storage_unavailable', err.message, { 'Retry-After': '5' });
  const e = err as { type?: string; status?: number; statusCode?: number; message?: string; limit?: number };
  // body-parser errors
  if (e.type === 'entity.too.large') {
    return new ApiError(413, 'payload_too_large', `the body exceeds the limit of ${e.limit} bytes; send smaller batches`);
  }
  if (e.type === 'encoding.unsupported') return new ApiError(415, 'unsupported_encoding', e.message ?? 'unsupported encoding');
  const status = e.status ?? e.statusCode;
  if (status && status >= 400 && status < 500) return new ApiError(status, 'bad_request', e.message ?? 'bad request');
  if (isClickHouseError(err)) return new ApiError(500, 'query_failed', 'the query failed in the storage engine');
  return new ApiError(500, 'internal', 'internal error');
}

function isClickHouseError(err: unknown): boolean {
  return !!err && typeof err === 'object' && (err as { constructor?: { name?: string } }).constructor?.name === 'ClickHouseError';
}
