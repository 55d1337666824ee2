import { convert } from './importers/fixtures.js';
import { readdirSync, statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStorage } from '../storage/gateway.js';
import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os';
const roots = ['/work/shared/fixtures/real', '/work/shared/fixtures/coding-agents'];
const files: string[] = [];
const walk = (d: string) => { for (const f of readdirSync(d)) { const p = join(d, f); if (statSync(p).isDirectory()) walk(p); else if (/\.(traj|json|jsonl|eval)$/.test(f) && !/args|preds|patch/.test(f)) files.push(p); } };
roots.forEach(walk);
const msgs: { src: string; m: string }[] = [];
for (const f of files) {
  try { const c = await convert(f); for (const e of c.runs.flatMap((r) => r.events) as any[]) if (e.error?.message) msgs.push({ src: f.split('/fixtures/')[1].split('/')[1], m: String(e.error.message) }); } catch {}
}
const s = await openStorage({ dataDir: mkdtempSync(join(tmpdir(), 'tmpl-')), database: 'default' });
const expr = readFileSync('/tmp/probe/expr.sql', 'utf8');
await s.command(`CREATE TABLE t (src String, error_message String, error_template String MATERIALIZED ${expr}) ENGINE = MergeTree ORDER BY tuple()`);
await s.insert('t', msgs.map((x) => ({ src: x.src, error_message: x.m })));
const rows = await s.query<any>(`SELECT error_template, count() AS n, groupUniqArray(src) AS srcs, any(substring(replaceAll(error_message, '\n', '⏎'), 1, 100)) AS ex, uniqExact(error_message) AS variants FROM t GROUP BY error_template ORDER BY srcs, n DESC`);
for (const r of rows) console.log(String(r.n).padStart(3), String(r.variants).padStart(3), r.srcs.join(','), '|', r.error_template, '  ⟵', r.ex);
await s.close();
