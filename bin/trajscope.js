#!/usr/bin/env node
// The `trajscope` command: runs the compiled CLI (npm run build writes dist/).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/bin/cli.js', import.meta.url));
if (!existsSync(cli)) {
  console.error('trajscope: not built yet. Run `npm run build` in the repository first.');
  process.exit(1);
}
await import(cli);
