// Runs the Python SDK's pytest suite (sdk/python/tests) as part of `npm test`: its fixtures start
// real Trajscope servers (`node --import tsx bin/cli.ts serve`) on free loopback ports.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../', import.meta.url));

function run(cmd: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: repo, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

it('the Python SDK passes its pytest suite against a real server', async () => {
  const { code, output } = await run('python3', ['-m', 'pytest', 'sdk/python', '-q', '-p', 'no:cacheprovider']);
  expect(code, `python3 -m pytest sdk/python failed:\n${output}`).toBe(0);
  expect(output).toMatch(/\d+ passed/);
}, 600_000);
