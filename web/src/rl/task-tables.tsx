// Tables of the Tasks & environments page: tasks with pass@k / pass^k and their verdict, flaky
// verifier cases, environments. Run ids link to their trajectories.
import { Link } from 'react-router-dom';
import type { EnvironmentRow, RlFlakyCase, RlTaskRow } from '../../../schemas/api.js';
import { formatDuration, formatInt, formatNumber, formatPercent } from '../lib/format.js';
import { passText, VERDICT_LABELS } from '../lib/rl-view.js';

function RunLinks({ ids, max = 2 }: { ids: string[]; max?: number }) {
  return (
    <span className="run-links">
      {ids.slice(0, max).map((id) => (
        <Link key={id} to={`/runs/${encodeURIComponent(id)}`} className="mono small" title={id}>
          {id.length > 24 ? `…${id.slice(-23)}` : id}
        </Link>
      ))}
    </span>
  );
}

/** A short list of tasks with one verdict (never / always solved): attempts and example runs. */
export function VerdictTable({ rows, testId }: { rows: RlTaskRow[]; testId?: string }) {
  return (
    <div className="rl-table-wrap">
      <table className="data-table" data-testid={testId}>
        <thead>
          <tr>
            <th>Task</th>
            <th>Environment</th>
            <th className="num">Attempts</th>
            <th className="num">Solved</th>
            <th>Example runs</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.task_id}>
              <td className="mono nowrap">{r.task_id}</td>
              <td>{r.environment || '—'}</td>
              <td className="num">{formatInt(r.attempts)}</td>
              <td className="num">{formatInt(r.solved)}</td>
              <td>
                <RunLinks ids={r.example_runs} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function TaskTable({ rows, ks, testId }: { rows: RlTaskRow[]; ks: number[]; testId?: string }) {
  return (
    <div className="rl-table-wrap">
      <table className="data-table" data-testid={testId}>
        <thead>
          <tr>
            <th>Task</th>
            <th>Environment</th>
            <th className="num">Attempts</th>
            <th className="num">Solve rate</th>
            {ks.map((k) => (
              <th key={`a${k}`} className="num" title={`unbiased pass@${k}: at least one of ${k} attempts solves it`}>
                pass@{k}
              </th>
            ))}
            {ks.map((k) => (
              <th key={`h${k}`} className="num" title={`pass^${k}: all ${k} of ${k} attempts solve it`}>
                pass^{k}
              </th>
            ))}
            <th>Verdict</th>
            <th>Example runs</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.task_id}>
              <td className="mono nowrap">{r.task_id}</td>
              <td>{r.environment || '—'}</td>
              <td className="num">{formatInt(r.attempts)}</td>
              <td className="num">{formatPercent(r.solve_rate)}</td>
              {ks.map((k) => (
                <td key={`a${k}`} className="num">{passText(r.pass_at[String(k)])}</td>
              ))}
              {ks.map((k) => (
                <td key={`h${k}`} className="num">{passText(r.pass_hat[String(k)])}</td>
              ))}
              <td>
                <span className={`verdict verdict-${r.verdict}`}>{VERDICT_LABELS[r.verdict]}</span>
              </td>
              <td>
                <RunLinks ids={r.example_runs} max={1} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function FlakyTable({ rows }: { rows: RlFlakyCase[] }) {
  return (
    <div className="rl-table-wrap">
      <table className="data-table" data-testid="rl-flaky-table">
        <thead>
          <tr>
            <th>Task</th>
            <th>Action sequence</th>
            <th className="num">Runs</th>
            <th className="num">Solved</th>
            <th className="num">Reward range</th>
            <th>Example runs</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.task_id}/${r.action_sequence}`}>
              <td className="mono nowrap">{r.task_id}</td>
              <td className="mono small">{r.action_sequence}</td>
              <td className="num">{formatInt(r.runs)}</td>
              <td className="num">{formatInt(r.solved)}</td>
              <td className="num">
                {formatNumber(r.min_reward, 2)} – {formatNumber(r.max_reward, 2)}
              </td>
              <td>
                <RunLinks ids={r.example_runs} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function EnvironmentTable({ rows }: { rows: EnvironmentRow[] }) {
  return (
    <div className="rl-table-wrap">
      <table className="data-table" data-testid="rl-environment-table">
        <thead>
          <tr>
            <th>Environment</th>
            <th className="num">Runs</th>
            <th className="num">Env. errors</th>
            <th className="num">Error rate</th>
            <th className="num">Tool calls</th>
            <th className="num">Tool time p50</th>
            <th className="num">Tool time p95</th>
            <th className="num">Time in environment</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={e.environment}>
              <td>{e.environment}</td>
              <td className="num">{formatInt(e.runs)}</td>
              <td className="num">{formatInt(e.environment_errors)}</td>
              <td className="num">{formatPercent(e.error_rate)}</td>
              <td className="num">{formatInt(e.tool_calls)}</td>
              <td className="num">{formatDuration(e.tool_ms_p50)}</td>
              <td className="num">{formatDuration(e.tool_ms_p95)}</td>
              <td className="num">{formatPercent(e.env_share)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
