// Reward-hacking patterns set by TRAJSCOPE_HACKING_PATTERNS: the analyzer looks for them instead
// of the defaults they name, and a pattern that does not compile stops the server from starting.
import { describe, expect, it } from 'vitest';
import { taskRuns } from '../helpers/task-runs.js';
import { newDataDir, removeDataDir, serverForFile, startTestServer } from '../helpers/test-server.js';

const run = taskRuns();

describe('reward-hacking patterns from TRAJSCOPE_HACKING_PATTERNS', () => {
  const patterns = JSON.stringify({ commands: { git_history: ['\\bhg\\s+log\\b'] } });
  const custom = serverForFile([...run('h1', 'task-9', 'env-h', 'success', ['hg log -r "all()"', 'git log --all'])], { TRAJSCOPE_HACKING_PATTERNS: patterns });

  it('are what the analyzer looks for', async () => {
    expect((await custom.api('/api/v1/runs/h1')).analysis.hacking.evidence).toEqual([{ kind: 'git_history', step: 0, source: 'action', text: 'hg log' }]);
  });

  it('stop the server from starting when a pattern does not compile, saying which', async () => {
    const dir = newDataDir();
    try {
      await expect(startTestServer({ TRAJSCOPE_HACKING_PATTERNS: '{"commands":{"git_history":["(x"]}}' }, dir)).rejects.toThrow(/reward-hacking patterns: commands\.git_history/);
    } finally {
      removeDataDir(dir);
    }
  });
});
