import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The dashboard: built into dist/web and served by the Express process.
export default defineConfig({
  root: 'web',
  plugins: [react()],
  build: { outDir: '../dist/web', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': 'http://127.0.0.1:7300', '/v1': 'http://127.0.0.1:7300' } },
});
