// The compiled `trajscope` CLI (dist/bin/cli.js, what `npx trajscope` runs) for benchmarks that
// start a server or worker: its memory and speed are what users get, without the TypeScript
// loader that `tsx` adds to a process (about 200 MiB of RSS and slower start).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath, repoRoot } from '../schemas/paths.js';

const SOURCE_DIRS = ['analytics', 'bin', 'ingest', 'schemas', 'server', 'storage'];

export function builtCli(): string {
  const cli = repoPath('dist', 'bin', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/bin/cli.js is missing: run `npm run build` before this benchmark');
  const built = statSync(cli).mtimeMs;
  const stale = SOURCE_DIRS.flatMap((d) => newerThan(join(repoRoot(), d), built)).slice(0, 3);
  if (stale.length) throw new Error(`dist/ is older than ${stale.join(', ')}: run \`npm run build\` before this benchmark`);
  return cli;
}

function newerThan(dir: string, t: number): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    if (statSync(path).mtimeMs > t) out.push(path.slice(repoRoot().length + 1));
  }
  return out;
}
