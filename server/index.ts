// Starts the HTTP server on the configured address; used by `trajscope serve` and the tests.
import type { Server } from 'node:http';
import type { Config } from '../bin/config.js';
import { createApp } from './app.js';
import { openServices, type Services } from './services.js';
import { authEnforced } from './auth/auth-middleware.js';
import { listenRefusal } from './auth/listen-guard.js';

export interface RunningServer {
  services: Services;
  server: Server;
  /** Base URL, e.g. http://127.0.0.1:7300 */
  url: string;
  close(): Promise<void>;
}

export async function startServer(config: Config, services?: Services): Promise<RunningServer> {
  const s = services ?? (await openServices(config));
  // Keys live in storage, so the check comes after opening it and before anything listens.
  const enforced = authEnforced(config, s.keys);
  const refusal = listenRefusal(config.host, enforced);
  if (refusal) {
    if (!services) await s.close().catch(() => {});
    throw new Error(refusal);
  }
  if (!enforced) {
    s.log.info(`open mode: no API key or admin token is configured, so every request on ${config.host} is served without a key (set TRAJSCOPE_ADMIN_TOKEN or create a key to require keys)`);
  }
  const app = createApp(s);
  const server = await new Promise<Server>((resolve, reject) => {
    const srv = app.listen(config.port, config.host, () => resolve(srv));
    srv.once('error', reject);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    services: s,
    server,
    url: `http://${host}:${port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await s.close();
    },
  };
}
