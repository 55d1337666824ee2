// Failure modes: the breakdown heat table (a row per model/version/…, a column per mode) and the
// example runs of each mode.
import { Link } from 'react-router-dom';
import type { FailuresReport } from '../../../schemas/api.js';
import { heatPercent, maxShare, modeLabel, type BreakdownRow } from '../lib/failures-view.js';
import { formatInt, formatPercent } from '../lib/format.js';
import { linkTo, runLink, withDimension, type Dimension, type Filters } from '../lib/filters.js';

export function BreakdownTable({
  rows,
  modes,
  colors,
  by,
  filters,
}: {
  rows: BreakdownRow[];
  modes: string[];
  colors: Map<string, string>;
  by: Dimension;
  filters: Filters;
}) {
  const max = maxShare(rows);
  return (
    <div className="table-scroll">
      <table className="data-table breakdown-table" data-testid="failure-breakdown">
        <thead>
          <tr>
            <th>{by.replace('_', ' ')}</th>
            <th className="num" title="runs that ended">Ended</th>
            <th className="num" title="share of ended runs with a failure mode">Failed</th>
            {modes.map((m) => (
              <th key={m} className="num mode-col" title={modeLabel(m)}>
                <span className="swatch" style={{ background: colors.get(m) }} />
                {modeLabel(m)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const keyed = withDimension(filters, by, r.key);
            return (
              <tr key={r.key}>
                <td className="truncate" title={r.key}>
                  <Link to={linkTo('/runs', keyed)}>{r.key || '(none)'}</Link>
                </td>
                <td className="num">{formatInt(r.ended)}</td>
                <td className="num">{formatPercent(r.failure_rate, 0)}</td>
                {r.cells.map((c) => {
                  const heat = heatPercent(c.share, max);
                  return (
                    <td
                      key={c.mode}
                      className={c.runs ? 'heat' : 'heat heat-0'}
                      style={heat ? { background: `color-mix(in srgb, var(--c-failure) ${heat}%, transparent)` } : undefined}
                      title={`${r.key} · ${modeLabel(c.mode)}: ${c.runs} of ${r.ended} ended runs (${formatPercent(c.share)})`}
                    >
                      {c.runs ? <Link to={linkTo('/runs', withDimension(keyed, 'failure_mode', c.mode))}>{formatPercent(c.share, 0)}</Link> : '·'}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function ExamplesTable({ report, colors, filters, filterSearch }: { report: FailuresReport; colors: Map<string, string>; filters: Filters; filterSearch: string }) {
  return (
    <table className="data-table" data-testid="failure-examples">
      <thead>
        <tr>
          <th>Mode</th>
          <th className="num">Runs</th>
          <th className="num">Share of failed</th>
          <th>Example runs</th>
        </tr>
      </thead>
      <tbody>
        {report.modes.map((m) => (
          <tr key={m.mode} data-mode={m.mode}>
            <td className="nowrap">
              <span className="swatch" style={{ background: colors.get(m.mode) }} />
              <Link to={linkTo('/runs', withDimension(filters, 'failure_mode', m.mode))}>{modeLabel(m.mode)}</Link>
            </td>
            <td className="num">{formatInt(m.runs)}</td>
            <td className="num">{formatPercent(m.share)}</td>
            <td>
              <div className="examples">
                {m.examples.map((id) => (
                  <Link key={id} className="run-id" to={runLink(id, filterSearch, filters.dims.project)} data-example-run={id}>
                    {id}
                  </Link>
                ))}
                {m.examples.length === 0 && <span className="muted">—</span>}
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
