import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * main.tsx starts the first view's requests and then imports the app (mount.tsx) dynamically.
 * This puts that chunk, the chunks it imports and their CSS into index.html as preloads and
 * stylesheets, so the browser fetches them with the entry instead of after it has run. A plain
 * preload (as=script), not a modulepreload: that one also compiles the big chunk as it arrives,
 * which ran before the small entry and held up its requests by as long.
 */
function preloadApp(): Plugin {
  let base = '/';
  return {
    name: 'trajscope-preload-app',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return;
        const chunks = new Map(Object.values(bundle).flatMap((c) => (c.type === 'chunk' ? [[c.fileName, c] as const] : [])));
        const entry = [...chunks.values()].find((c) => c.isEntry);
        const app = [...chunks.values()].find((c) => c.facadeModuleId?.endsWith('/web/src/mount.tsx'));
        if (!entry || !app) throw new Error('trajscope-preload-app: the entry or the mount.tsx chunk is missing from the bundle');
        const js = new Set<string>();
        const css = new Set<string>();
        const visit = (file: string) => {
          const c = chunks.get(file);
          if (!c || js.has(file) || file === entry.fileName || entry.imports.includes(file)) return;
          js.add(file);
          for (const f of c.viteMetadata?.importedCss ?? []) css.add(f);
          c.imports.forEach(visit);
        };
        visit(app.fileName);
        return [
          ...[...js].map((f) => ({ tag: 'link', attrs: { rel: 'preload', as: 'script', crossorigin: true, href: `${base}${f}` }, injectTo: 'head' as const })),
          ...[...css].map((f) => ({ tag: 'link', attrs: { rel: 'stylesheet', crossorigin: true, href: `${base}${f}` }, injectTo: 'head' as const })),
        ];
      },
    },
  };
}

/**
 * Writes a brotli (.br) and a gzip (.gz) copy beside every script and stylesheet of the build;
 * the server sends one of them to browsers that accept it (server/dashboard/dashboard-router.ts).
 */
function compressAssets(): Plugin {
  return {
    name: 'trajscope-compress-assets',
    apply: 'build',
    writeBundle(options, bundle) {
      const dir = options.dir;
      if (!dir) return;
      for (const file of Object.values(bundle)) {
        if (!/\.(js|css)$/.test(file.fileName)) continue;
        const data = Buffer.from(file.type === 'chunk' ? file.code : file.source);
        if (data.length < 1024) continue;
        const path = join(dir, file.fileName);
        writeFileSync(`${path}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }));
        writeFileSync(`${path}.gz`, gzipSync(data, { level: 9 }));
      }
    },
  };
}

// The dashboard: built into dist/web and served by the Express process.
export default defineConfig({
  root: 'web',
  plugins: [react(), preloadApp(), compressAssets()],
  build: { outDir: '../dist/web', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': 'http://127.0.0.1:7300', '/v1': 'http://127.0.0.1:7300' } },
});
