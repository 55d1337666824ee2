// The loops found, most costly first; each row opens the trajectory viewer at the loop's first step.
import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { LoopRow } from '../../../schemas/api.js';
import { StatusBadge } from '../components/status-badge.js';
import { runLink } from '../lib/filters.js';
import { formatInt, formatRelative, formatTokens, formatUsd } from '../lib/format.js';
import { loopShape, loopSpan } from '../lib/loops-view.js';

const PAGE = 25;

export function LoopsTable({ loops, filterSearch, now }: { loops: LoopRow[]; filterSearch: string; now: Date }) {
  const [shown, setShown] = useState(PAGE);
  return (
    <div className="table-scroll">
      <table className="data-table" data-testid="loops-table">
        <thead>
          <tr>
            <th>Run</th>
            <th>Kind</th>
            <th>Where</th>
            <th className="num">Period</th>
            <th className="num">Repetitions</th>
            <th className="num">Waste tokens</th>
            <th className="num">Waste cost</th>
            <th>Model</th>
            <th>Status</th>
            <th>Started</th>
          </tr>
        </thead>
        <tbody>
          {loops.slice(0, shown).map((l) => {
            const href = runLink(l.run_id, filterSearch, l.project, l.first_step);
            return (
              <tr key={`${l.project}/${l.run_id}/${l.first_step}`} data-loop-run={l.run_id} data-loop-step={l.first_step}>
                <td>
                  <Link className="run-id" to={href}>
                    {l.run_id}
                  </Link>
                </td>
                <td>
                  <span className={`badge badge-loop-${l.kind}`}>{l.kind}</span>
                </td>
                <td className="nowrap">
                  <Link to={href} title="Open the run at the loop">
                    {loopSpan(l)}
                  </Link>
                </td>
                <td className="num">{l.period}</td>
                <td className="num" title={loopShape(l)}>
                  {formatInt(l.repetitions)}
                </td>
                <td className="num">{formatTokens(l.tokens)}</td>
                <td className="num">{formatUsd(l.cost_usd)}</td>
                <td className="truncate">{l.model}</td>
                <td>
                  <StatusBadge status={l.status} />
                </td>
                <td className="nowrap muted">{formatRelative(l.started_at, now)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {loops.length > shown && (
        <div className="table-foot">
          <span className="muted small">
            {formatInt(shown)} of {formatInt(loops.length)} loops
          </span>
          <button type="button" className="btn" onClick={() => setShown((n) => n + PAGE * 2)}>
            Show more
          </button>
        </div>
      )}
    </div>
  );
}
