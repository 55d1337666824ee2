// The dashboard's files (dist/web, built by vite). Hashed assets (/assets/name-HASH.js) never
// change under their name, so browsers keep them for a year without asking again, and they are
// sent as the compressed copies the build wrote beside them (.br, .gz; vite.config.ts) when the
// browser accepts one. index.html, which names the current assets, is revalidated on every load
// and answers every client-side route.
import { stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import express, { Router, type Request, type Response } from 'express';

const YEAR = '365d';
/** Asset names the build writes: no folders, no dots other than before the extension(s). */
const ASSET_NAME = /^[\w-]+(\.[\w-]+)*\.(js|css|svg|woff2?|png|json)$/;
const ENCODINGS = [
  { name: 'br', ext: '.br' },
  { name: 'gzip', ext: '.gz' },
] as const;

/** Whether `file` exists; answers are kept (an asset's name changes whenever its content does). */
function existsCache(): (file: string) => Promise<boolean> {
  const known = new Map<string, boolean>();
  return async (file) => {
    let ok = known.get(file);
    if (ok === undefined) {
      ok = await stat(file).then((s) => s.isFile(), () => false);
      if (known.size > 10_000) known.clear();
      known.set(file, ok);
    }
    return ok;
  };
}

export function dashboardRouter(webDir: string): Router {
  const router = Router();
  const assets = join(webDir, 'assets');
  const exists = existsCache();

  router.get('/assets/:name', async (req: Request, res: Response, next) => {
    const name = String(req.params.name);
    res.vary('Accept-Encoding');
    if (!ASSET_NAME.test(name)) return next();
    try {
      for (const enc of ENCODINGS) {
        if (!req.acceptsEncodings(enc.name)) continue;
        const file = join(assets, name + enc.ext);
        if (!(await exists(file))) continue;
        res.type(extname(name));
        res.setHeader('Content-Encoding', enc.name);
        return res.sendFile(file, { maxAge: YEAR, immutable: true });
      }
      next();
    } catch (err) {
      next(err);
    }
  });
  router.use('/assets', express.static(assets, { index: false, maxAge: YEAR, immutable: true, fallthrough: true }));
  // An asset that is not there (a page built before the last build asked for it) is a 404, not
  // the index page.
  router.use('/assets', (_req, res) => {
    res.status(404).type('text').send('no such asset');
  });
  // Client-side routes of the dashboard get its index page, checked for changes on every load.
  const index = join(webDir, 'index.html');
  router.get(/^\/(?!api\/|v1\/).*/, (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index, (err) => err && next(err));
  });
  return router;
}
