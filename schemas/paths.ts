// Locates files of the repository both from source (tsx, vitest) and from the compiled dist/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The repository root: the nearest folder above this module that holds package.json. */
export function repoRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the repository root (package.json)');
    dir = up;
  }
  root = dir;
  return dir;
}

export function repoPath(...parts: string[]): string {
  return join(repoRoot(), ...parts);
}
