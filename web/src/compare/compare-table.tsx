// Every metric of the two cohorts side by side: values, change, 95% intervals of rates and the
// significance of the difference where the counts allow a test.
import type { Interval } from '../../../schemas/api.js';
import { formatP, type CompareRow } from '../lib/compare-view.js';
import { formatDuration, formatInt, formatInterval, formatNumber, formatPercent, formatTokens, formatUsd } from '../lib/format.js';

function fmt(v: number | null, f: CompareRow['format']): string {
  switch (f) {
    case 'int':
      return formatInt(v);
    case 'percent':
      return formatPercent(v);
    case 'usd':
      return formatUsd(v);
    case 'duration':
      return formatDuration(v);
    case 'tokens':
      return formatTokens(v);
    default:
      return formatNumber(v, 1);
  }
}

function fmtDelta(r: CompareRow): string {
  if (r.delta === null) return '—';
  const sign = r.delta > 0 ? '+' : r.delta < 0 ? '−' : '±';
  const abs = Math.abs(r.delta);
  if (r.format === 'percent') return `${sign}${formatNumber(abs * 100, 1)} pp`;
  return `${sign}${fmt(abs, r.format)}`;
}

function Value({ v, r, rate, ci }: { v: number | null; r: CompareRow; rate: number | null | undefined; ci: Interval | null | undefined }) {
  return (
    <>
      <div>{fmt(v, r.format)}</div>
      {r.format === 'int' && rate !== undefined && rate !== null && <div className="muted small">{formatPercent(rate)}</div>}
      {ci && <div className="muted small">CI {formatInterval(ci)}</div>}
    </>
  );
}

const VERDICT_CLASS = { better: 'delta-good', worse: 'delta-bad', same: 'delta-flat', unknown: 'delta-flat' } as const;

export function CompareTable({ rows, aLabel, bLabel }: { rows: CompareRow[]; aLabel: string; bLabel: string }) {
  return (
    <table className="data-table compare-table" data-testid="compare-table">
      <thead>
        <tr>
          <th>Metric</th>
          <th className="num">
            <span className="cohort-tag cohort-a">A</span> {aLabel}
          </th>
          <th className="num">
            <span className="cohort-tag cohort-b">B</span> {bLabel}
          </th>
          <th className="num">B − A</th>
          <th className="num">Change</th>
          <th>Significance</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} data-metric={r.key}>
            <td>
              <div>{r.label}</div>
              {r.hint && <div className="muted small">{r.hint}</div>}
            </td>
            <td className="num">
              <Value v={r.a} r={r} rate={r.rate?.a} ci={r.rate?.aCi} />
            </td>
            <td className="num">
              <Value v={r.b} r={r} rate={r.rate?.b} ci={r.rate?.bCi} />
            </td>
            <td className={`num ${VERDICT_CLASS[r.verdict]}`} data-verdict={r.verdict}>
              {fmtDelta(r)}
            </td>
            <td className={`num ${VERDICT_CLASS[r.verdict]}`}>{r.relative === null ? '—' : `${r.relative > 0 ? '+' : ''}${formatPercent(r.relative, 0)}`}</td>
            <td>
              {r.significant === null ? (
                <span className="muted small">{r.better === 'neither' ? '' : 'no test for averages'}</span>
              ) : (
                <span className={r.significant ? 'sig sig-yes' : 'sig'} title="two-sided two-proportion z test">
                  {r.significant ? 'significant' : 'not significant'} · {formatP(r.p_value)}
                </span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
