import { describe, expect, it } from 'vitest';
import { checkConsoleSql, maskLiteralsAndComments, SqlRejectedError } from '../../server/sql/sql-guard.js';

describe('console SQL guard', () => {
  it('lets read-only statements through, trailing semicolon dropped', () => {
    expect(checkConsoleSql('SELECT 1;')).toBe('SELECT 1');
    expect(checkConsoleSql('  with x AS (SELECT 1) SELECT * FROM x')).toMatch(/^with/);
    expect(checkConsoleSql('(SELECT 1) UNION ALL (SELECT 2)')).toBeTruthy();
    for (const s of ['SHOW TABLES', 'DESCRIBE steps', 'desc steps', 'EXPLAIN SELECT 1']) expect(checkConsoleSql(s)).toBe(s);
    // Words inside strings and comments do not count.
    expect(checkConsoleSql("SELECT 'DROP TABLE runs; file(x)' AS s -- ; INSERT\n")).toBeTruthy();
    expect(checkConsoleSql("SELECT count() FROM tool_calls WHERE tool = 'url'")).toBeTruthy();
  });

  it('refuses writes, several statements, outside table functions, OUTFILE and SETTINGS', () => {
    const refused: [string, RegExp][] = [
      ['INSERT INTO steps VALUES (1)', /only SELECT/],
      ['DROP TABLE runs', /only SELECT/],
      ['ALTER TABLE runs DELETE WHERE 1', /only SELECT/],
      ['SET readonly = 0', /only SELECT/],
      ['SELECT 1; DROP TABLE runs', /one statement/],
      ["SELECT * FROM file('/etc/passwd', 'LineAsString')", /file\(\)/],
      ["SELECT * FROM url('http://127.0.0.1:1/x', 'CSV')", /url\(\)/],
      ["SELECT * FROM remote('127.0.0.1', system.one)", /remote\(\)/],
      ["SELECT * FROM s3 ('x')", /s3\(\)/],
      ['SELECT * FROM "file"(\'x\')', /file\(\)/],
      ["SELECT 1 INTO OUTFILE 'x.csv'", /OUTFILE/],
      ['SELECT 1 SETTINGS max_result_rows = 1e12', /SETTINGS/],
      ['   ', /empty/],
      ['/* x */ ', /empty|only SELECT/],
    ];
    for (const [sql, reason] of refused) {
      expect(() => checkConsoleSql(sql), sql).toThrow(SqlRejectedError);
      expect(() => checkConsoleSql(sql), sql).toThrow(reason);
    }
  });

  it('masks literals and comments without moving positions', () => {
    for (const sql of ["SELECT 'a;b' /* c; */ , \"i;d\" -- x;\n", 'SELECT "unterminated', "SELECT 'open", 'SELECT `a`']) {
      const masked = maskLiteralsAndComments(sql);
      expect(masked).toHaveLength(sql.length);
      expect(masked).not.toContain(';');
    }
    const sql = "SELECT 'a;b' /* c; */ , \"id\" -- x;\n";
    const masked = maskLiteralsAndComments(sql);
    expect(masked).toHaveLength(sql.length);
    expect(masked).not.toContain(';');
  });
});
