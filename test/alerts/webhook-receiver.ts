// A real HTTP webhook receiver on 127.0.0.1 for the alert tests: records every request (headers,
// raw body) and answers as `respond` says: a status code, or 'hang' (never answers).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  n: number;
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
}

export type Answer = number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests answered 2xx. */
  accepted(): Received[];
  /** Resolves when at least `count` requests (matching `filter`) arrived, or throws after `timeoutMs`. */
  waitFor(count: number, filter?: (r: Received) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(respond: (n: number, r: Received) => Answer = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const answered = new Map<Received, number>();
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = null;
      }
      const r: Received = { n: received.length + 1, at: Date.now(), path: req.url ?? '', headers: req.headers, raw, body };
      received.push(r);
      const answer = respond(r.n, r);
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      answered.set(r, answer);
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    accepted: () => received.filter((r) => (answered.get(r) ?? 0) >= 200 && (answered.get(r) ?? 0) < 300),
    async waitFor(count, filter = () => true, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const got = received.filter(filter);
        if (got.length >= count) return got;
        if (Date.now() > until) throw new Error(`receiver got ${got.length} of ${count} expected requests within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `get` until `done` says yes (at most `timeoutMs`); returns the last value. */
export async function pollUntil<T>(get: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (done(v)) return v;
    if (Date.now() > until) throw new Error(`${what} not reached within ${timeoutMs} ms; last: ${JSON.stringify(v).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
