import { describe, expect, it, vi } from 'vitest';
import { ApiError, errorFromResponse, getJson, prefetch } from '../../web/src/api/client.js';

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

describe('prefetch', () => {
  /** A fetch that answers {n: calls so far} and counts its calls. */
  function countingFetch() {
    const f = Object.assign(
      (async () => {
        f.calls++;
        return new Response(JSON.stringify({ n: f.calls }), { status: 200 });
      }) as unknown as typeof fetch,
      { calls: 0 },
    );
    return f;
  }

  it('gives the first ask of a prefetched path its answer, and asks again after that', async () => {
    const early = countingFetch();
    const later = countingFetch();
    prefetch(() => [getJson('/p/one', {}, early)]);
    expect(early.calls).toBe(1);
    await expect(getJson('/p/one', {}, later)).resolves.toEqual({ n: 1 });
    expect(later.calls).toBe(0);
    await expect(getJson('/p/one', {}, later)).resolves.toEqual({ n: 1 });
    expect(later.calls).toBe(1);
  });

  it('does not hand a prefetched answer to another path', async () => {
    const early = countingFetch();
    const later = countingFetch();
    prefetch(() => [getJson('/p/two?a=1', {}, early)]);
    await getJson('/p/two?a=2', {}, later);
    expect(later.calls).toBe(1);
  });

  it('asks again when the prefetched answer is older than 10 s', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const early = countingFetch();
      const later = countingFetch();
      prefetch(() => [getJson('/p/old', {}, early)]);
      vi.setSystemTime(Date.now() + 11_000);
      await getJson('/p/old', {}, later);
      expect(later.calls).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects with an AbortError when the asking view aborts, and keeps a failure for the view', async () => {
    const early = countingFetch();
    prefetch(() => [getJson('/p/three', {}, early)]);
    const ctrl = new AbortController();
    const asked = getJson('/p/three', { signal: ctrl.signal });
    ctrl.abort();
    await expect(asked).rejects.toMatchObject({ name: 'AbortError' });

    prefetch(() => [getJson('/p/four', {}, fakeFetch(500, '{"error":{"code":"internal","message":"boom"}}'))]);
    await expect(getJson('/p/four', {}, countingFetch())).rejects.toMatchObject({ status: 500, code: 'internal' });
  });
});
