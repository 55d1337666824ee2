// The key argument of a tool call (analytics/key-argument.ts): the file, command, query or URL a
// call works on, by well-known argument names, else its first short string; one line, bounded.
import { describe, expect, it } from 'vitest';
import { KEY_ARGUMENT_MAX, keyArgument } from '../../analytics/key-argument.js';

describe('keyArgument', () => {
  it('picks the argument that names what the call works on', () => {
    expect(keyArgument('{"path":"/repo/src/app.py","old_str":"x","new_str":"y"}')).toBe('/repo/src/app.py');
    expect(keyArgument({ file_path: 'a.ts', content: 'long text' })).toBe('a.ts');
    expect(keyArgument('{"command":"pytest -q tests/","timeout":30}')).toBe('pytest -q tests/');
    expect(keyArgument({ Command: ['git', 'log', '--all'] })).toBe('git log --all');
    expect(keyArgument({ query: 'flights SFO' })).toBe('flights SFO');
    // The path before the command, whatever their order in the object.
    expect(keyArgument({ command: 'view', path: '/a/b.py' })).toBe('/a/b.py');
  });
  it('falls back to the first short string, or the text itself', () => {
    expect(keyArgument({ reservation_id: 'BOH180', amount: 3 })).toBe('BOH180');
    expect(keyArgument('ls -la')).toBe('ls -la');
    expect(keyArgument({ n: 1, ok: true })).toBe('');
    expect(keyArgument('[1,2]')).toBe('');
    expect(keyArgument(null)).toBe('');
  });
  it('is one line, cut to KEY_ARGUMENT_MAX', () => {
    expect(keyArgument({ command: 'cd /repo\npytest' })).toBe('cd /repo …');
    const long = keyArgument({ command: 'x'.repeat(500) });
    expect(long).toHaveLength(KEY_ARGUMENT_MAX);
    expect(long.endsWith('…')).toBe(true);
    expect(keyArgument({ command: '  a   b  ' })).toBe('a b');
  });
});
