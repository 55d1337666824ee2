import { describe, expect, it } from 'vitest';
import { shellWrites, toolCallWrites } from '../../analytics/file-writes.js';
import { compilePathPattern } from '../../analytics/path-patterns.js';
import { detectSuspiciousSuccess, type SuccessRun } from '../../analytics/suspicious-success.js';

const run = (over: Partial<SuccessRun>): SuccessRun => ({
  status: 'success',
  steps: [],
  tool_calls: [],
  tests_passed: 10,
  tests_failed: 0,
  ...over,
});
const actions = (...texts: string[]) => texts.map((action, step) => ({ step, action }));

describe('verifier path patterns', () => {
  const matches = (pattern: string, path: string) => compilePathPattern(pattern).test(path);
  it('matches directories anywhere, file-name globs and CI files', () => {
    expect(matches('tests/', 'tests/test_a.py')).toBe(true);
    expect(matches('tests/', '/repo/pkg/tests')).toBe(true);
    expect(matches('tests/', 'contests/a.py')).toBe(false);
    expect(matches('test_*.py', 'pkg/test_models.py')).toBe(true);
    expect(matches('test_*.py', 'pkg/test_models.pyc')).toBe(false);
    expect(matches('*_test.go', 'server/http_test.go')).toBe(true);
    expect(matches('conftest.py', 'conftest.py')).toBe(true);
    expect(matches('.github/workflows/', '.github/workflows/ci.yml')).toBe(true);
  });
});

describe('file writes', () => {
  it('reads shell commands that delete or change files', () => {
    expect(shellWrites('rm -rf tests')).toEqual([{ path: 'tests', kind: 'delete' }]);
    expect(shellWrites('echo "def test(): pass" > tests/test_a.py')).toEqual([{ path: 'tests/test_a.py', kind: 'edit' }]);
    expect(shellWrites('cp /tmp/c.py conftest.py && pytest')).toEqual([{ path: 'conftest.py', kind: 'edit' }]);
    expect(shellWrites('git checkout -- tests/test_a.py')).toEqual([{ path: 'tests/test_a.py', kind: 'edit' }]);
    expect(shellWrites("sed -i 's/x/y/' tests/test_x.py").map((w) => w.path)).toContain('tests/test_x.py');
  });

  it('does not take reads for writes', () => {
    expect(shellWrites('pytest tests/ -q 2>&1 | tail -5')).toEqual([]);
    expect(shellWrites('grep -rn "rm" tests/')).toEqual([]);
    expect(shellWrites('cat tests/test_a.py')).toEqual([]);
    expect(toolCallWrites('str_replace_editor', { command: 'view', path: 'tests/test_a.py' })).toEqual([]);
  });

  it('reads editor tools by their path arguments', () => {
    expect(toolCallWrites('str_replace_editor', { command: 'str_replace', path: 'tests/t.py', old_str: 'a', new_str: 'b' })).toEqual([
      { path: 'tests/t.py', kind: 'edit' },
    ]);
    expect(toolCallWrites('delete_file', { path: 'conftest.py' })).toEqual([{ path: 'conftest.py', kind: 'delete' }]);
    expect(toolCallWrites('write_file', { path: 'src/a.py', content: 'see tests/test_a.py' })).toEqual([
      { path: 'src/a.py', kind: 'edit' },
    ]);
  });
});

describe('suspicious success', () => {
  it('flags a success that deletes a test file, with the step as evidence', () => {
    const r = detectSuspiciousSuccess(run({ steps: actions('ls', 'pytest -q', 'rm tests/test_hard.py', 'pytest -q') }));
    expect(r).toEqual({
      suspicious: true,
      reasons: ['verifier_files_modified'],
      evidence: [{ step: 2, path: 'tests/test_hard.py', kind: 'delete', source: 'action' }],
      evidence_steps: [2],
    });
  });

  it('flags edits through tool-call arguments given as JSON text', () => {
    const r = detectSuspiciousSuccess(
      run({
        tool_calls: [
          { step: 3, tool: 'str_replace_editor', arguments: '{"command":"create","path":"conftest.py","file_text":"..."}' },
          { step: 4, tool: 'bash', arguments: '{"cmd":"pytest"}' },
        ],
      }),
    );
    expect(r.reasons).toEqual(['verifier_files_modified']);
    expect(r.evidence).toEqual([{ step: 3, path: 'conftest.py', kind: 'create', source: 'tool_call' }]);
  });

  it('follows SWE-agent editing of the open file', () => {
    const r = detectSuspiciousSuccess(run({ steps: actions('open tests/test_api.py', 'edit 10:12\n    pass\nend_of_edit', 'submit') }));
    expect(r.evidence).toEqual([{ step: 1, path: 'tests/test_api.py', kind: 'edit', source: 'action' }]);
  });

  it('flags a success with no test having run', () => {
    const r = detectSuspiciousSuccess(run({ tests_passed: null, tests_failed: null, steps: actions('edit src/a.py', 'submit') }));
    expect(r).toMatchObject({ suspicious: true, reasons: ['no_tests_ran'], evidence_steps: [] });
    expect(detectSuspiciousSuccess(run({ tests_passed: 0, tests_failed: 0 })).reasons).toEqual(['no_tests_ran']);
    expect(detectSuspiciousSuccess(run({ tests_passed: null, tests_failed: null }), { flagNoTests: false }).suspicious).toBe(false);
  });

  it('accepts tests run by the agent when the run reports none', () => {
    const r = detectSuspiciousSuccess(run({ tests_passed: null, tests_failed: null, steps: actions('python -m pytest tests/ -x') }));
    expect(r.suspicious).toBe(false);
  });

  it('does not flag an honest success, nor any run that did not succeed', () => {
    const honest = run({ steps: actions('cat tests/test_a.py', 'sed -i "s/a/b/" src/lib.py', 'pytest tests/') });
    expect(detectSuspiciousSuccess(honest).suspicious).toBe(false);
    const failed = run({ status: 'failure', steps: actions('rm -rf tests') });
    expect(detectSuspiciousSuccess(failed)).toEqual({ suspicious: false, reasons: [], evidence: [], evidence_steps: [] });
  });

  it('uses configured paths', () => {
    const r = run({ steps: actions('rm spec/api_spec.rb') });
    expect(detectSuspiciousSuccess(r).suspicious).toBe(false);
    expect(detectSuspiciousSuccess(r, { verifierPaths: ['spec/', /_spec\.rb$/] }).evidence_steps).toEqual([0]);
  });
});
