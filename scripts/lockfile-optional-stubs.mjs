#!/usr/bin/env node
// Adds lockfile entries for optional, platform-specific packages that the registry reachable here
// does not serve (chDB's macOS / arm64 libraries, vite's Windows helper). `npm install` leaves
// them out of package-lock.json, and `npm ci` then refuses the lockfile as out of sync. Run this
// after every `npm install` that rewrites the lockfile: node scripts/lockfile-optional-stubs.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const platform = {
  '@chdb/lib-darwin-arm64': { cpu: ['arm64'], os: ['darwin'] },
  '@chdb/lib-darwin-x64': { cpu: ['x64'], os: ['darwin'] },
  '@chdb/lib-linux-arm64-gnu': { cpu: ['arm64'], libc: ['glibc'], os: ['linux'] },
  'napi-windows-process-start-time': { os: ['win32'] },
};
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key] || !platform[name]) continue;
    const version = String(range).replace(/^[~^]/, '');
    lock.packages[key] = { version, ...platform[name], optional: true };
    added++;
    console.log(`added ${key}@${version} (optional dependency of ${path || 'the root'})`);
  }
}
if (added) {
  const [root, ...rest] = Object.entries(lock.packages);
  lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
}
console.log(added ? `package-lock.json: ${added} stub(s) added` : 'package-lock.json: nothing to add');
