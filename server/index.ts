// Starts the HTTP server on the configured address; used by `trajscope serve` and the tests.
import type { Server } from 'node:http';
import type { Config } from '../bin/config.js';
import { createApp } from './app.js';
import { openServices, type Services } from './services.js';

export interface RunningServer {
  services: Services;
  server: Server;
  /** Base URL, e.g. http://127.0.0.1:7300 */
  url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function startServer(config: Config, services?: Services): Promise<RunningServer> {
  if (!LOOPBACK.has(config.host) && !config.adminToken) {
    throw new Error(
      `refusing to listen on ${config.host} without authentication: set TRAJSCOPE_ADMIN_TOKEN or listen on 127.0.0.1`,
    );
  }
  const s = services ?? (await openServices(config));
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
