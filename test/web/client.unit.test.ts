import { describe, expect, it } from 'vitest';
import { ApiError, errorFromResponse, getJson } from '../../web/src/api/client.js';

function fakeFetch(status: number, body: string, statusText = ''): typeof fetch {
  return (async () => new Response(body, { status, statusText })) as typeof fetch;
}

describe('API client errors', () => {
  it('carries the server error code and message', () => {
    const e = errorFromResponse(404, 'Not Found', { error: { code: 'not_found', message: 'run r-1 not found' } });
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 404, code: 'not_found', message: 'run r-1 not found' });
    expect(e.isNotFound).toBe(true);
  });
  it('falls back when the body is not the error shape', () => {
    expect(errorFromResponse(502, 'Bad Gateway', '<html>')).toMatchObject({ code: 'http_502', message: '502 Bad Gateway' });
  });
  it('parses JSON on success and throws ApiError otherwise', async () => {
    await expect(getJson<{ a: number }>('/x', {}, fakeFetch(200, '{"a":1}'))).resolves.toEqual({ a: 1 });
    await expect(getJson('/x', {}, fakeFetch(400, '{"error":{"code":"bad_request","message":"sort must be one of"}}'))).rejects.toMatchObject({
      status: 400,
      code: 'bad_request',
    });
    await expect(getJson('/x', {}, fakeFetch(200, 'not json'))).rejects.toMatchObject({ code: 'bad_response' });
  });
  it('reports a network failure as status 0', async () => {
    const failing = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    const err = await getJson('/x', {}, failing).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).isNetwork).toBe(true);
  });
});
