// Costs: top expensive runs, runs far above their cohort, context blow-up steps and hours of
// spend over baseline. Every run links to the trajectory viewer (at the step, for blow-ups).
import { Link } from 'react-router-dom';
import type { CostSpikesReport, RunSummary } from '../../../schemas/api.js';
import { StatusBadge } from '../components/status-badge.js';
import { formatFactor, type HourRow } from '../lib/costs-view.js';
import { runLink } from '../lib/filters.js';
import { bucketLabel } from '../lib/chart-data.js';
import { formatInt, formatTokens, formatUsd } from '../lib/format.js';

function FactorBar({ factor, max }: { factor: number | null; max: number }) {
  const w = factor && max > 0 ? Math.max(4, Math.min(100, (Math.log(factor) / Math.log(Math.max(max, 2))) * 100)) : 0;
  return (
    <span className="bar-cell">
      <span className="bar" style={{ width: `${w}%` }} />
      <span className="bar-label">{formatFactor(factor)}</span>
    </span>
  );
}

/** A run's id, linking to its trajectory with the page's filters. */
function RunCell({ run, filterSearch }: { run: { run_id: string; project: string }; filterSearch: string }) {
  return (
    <td>
      <Link className="run-id" to={runLink(run.run_id, filterSearch, run.project)}>
        {run.run_id}
      </Link>
    </td>
  );
}

export function TopRunsTable({ runs, filterSearch }: { runs: RunSummary[]; filterSearch: string }) {
  return (
    <table className="data-table" data-testid="top-runs">
      <thead>
        <tr>
          <th>Run</th>
          <th>Model</th>
          <th>Status</th>
          <th className="num">Steps</th>
          <th className="num">Tokens</th>
          <th className="num">Cost</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={`${r.project}/${r.run_id}`} data-run-id={r.run_id}>
            <RunCell run={r} filterSearch={filterSearch} />
            <td className="truncate">{r.model}</td>
            <td>
              <StatusBadge status={r.status} />
            </td>
            <td className="num">{formatInt(r.steps)}</td>
            <td className="num">{formatTokens(r.input_tokens + r.output_tokens)}</td>
            <td className="num">{formatUsd(r.cost_usd)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function SpikesTable({ spikes, filterSearch }: { spikes: CostSpikesReport['runs']; filterSearch: string }) {
  const max = Math.max(2, ...spikes.map((s) => s.factor ?? 0));
  return (
    <table className="data-table" data-testid="cost-spikes">
      <thead>
        <tr>
          <th>Run</th>
          <th>Cohort</th>
          <th className="num">Cost</th>
          <th className="num" title="median cost of the runs of the same project, model and task category">Cohort median</th>
          <th>× median</th>
        </tr>
      </thead>
      <tbody>
        {spikes.map((s) => (
          <tr key={`${s.project}/${s.run_id}`} data-run-id={s.run_id}>
            <RunCell run={s} filterSearch={filterSearch} />
            <td className="small cohort-cell" title={`${s.cohort_runs} runs in the cohort`}>
              <div>{s.cohort.model}</div>
              <div className="muted">{s.cohort.task_category || '—'}</div>
            </td>
            <td className="num">{formatUsd(s.cost_usd)}</td>
            <td className="num muted">{formatUsd(s.cohort_median)}</td>
            <td>
              <FactorBar factor={s.factor} max={max} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function BlowupsTable({ steps, filterSearch }: { steps: CostSpikesReport['steps']; filterSearch: string }) {
  const max = Math.max(2, ...steps.map((s) => s.factor));
  return (
    <table className="data-table" data-testid="context-blowups">
      <thead>
        <tr>
          <th>Run</th>
          <th className="num">Step</th>
          <th className="num">Input tokens</th>
          <th className="num" title="99th percentile of input tokens per step in the cohort">Cohort p99</th>
          <th>× p99</th>
        </tr>
      </thead>
      <tbody>
        {steps.map((s) => {
          const href = runLink(s.run_id, filterSearch, s.project, s.step);
          return (
            <tr key={`${s.project}/${s.run_id}/${s.step}`} data-run-id={s.run_id} data-step={s.step}>
              <td>
                <Link className="run-id" to={href}>
                  {s.run_id}
                </Link>
              </td>
              <td className="num">
                <Link to={href}>{s.step}</Link>
              </td>
              <td className="num">{formatTokens(s.input_tokens)}</td>
              <td className="num muted">{formatTokens(s.cohort_p99)}</td>
              <td>
                <FactorBar factor={s.factor} max={max} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function HoursTable({ hours, onOpen }: { hours: HourRow[]; onOpen: (h: HourRow) => void }) {
  const max = Math.max(2, ...hours.map((h) => h.factor));
  return (
    <table className="data-table" data-testid="hours-over-baseline">
      <thead>
        <tr>
          <th>Hour (UTC)</th>
          <th className="num">Spend</th>
          <th className="num">Baseline</th>
          <th className="num">Over</th>
          <th>× baseline</th>
        </tr>
      </thead>
      <tbody>
        {hours.map((h) => (
          <tr key={h.hour}>
            <td className="nowrap">
              <button type="button" className="link-btn" onClick={() => onOpen(h)} title="Runs of this hour">
                {bucketLabel(h.t, 3600, 'UTC')}
              </button>
            </td>
            <td className="num">{formatUsd(h.cost_usd)}</td>
            <td className="num muted">{formatUsd(h.baseline_usd)}</td>
            <td className="num">{formatUsd(h.over_usd)}</td>
            <td>
              <FactorBar factor={h.factor} max={max} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
