// The top of the run page: who ran what, how it ended, and what it cost.
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { RunDetail } from '../../../schemas/api.js';
import { StatusBadge } from '../components/status-badge.js';
import {
  agentLabel,
  formatDuration,
  formatInt,
  formatScore,
  formatTests,
  formatTimestamp,
  formatTokens,
  formatUsd,
  NONE,
} from '../lib/format.js';

function Fact({ label, children, wide = false }: { label: string; children: ReactNode; wide?: boolean }) {
  return (
    <div className={wide ? 'fact fact-wide' : 'fact'}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export function RunHeader({ detail, search }: { detail: RunDetail; search: string }) {
  const r = detail.run;
  const tagEntries = Object.entries(r.tags ?? {});
  const failure = detail.analysis?.failure ?? null;
  return (
    <section className="card run-header">
      <div className="run-title">
        <h1 className="mono">{r.run_id}</h1>
        <StatusBadge status={r.status} />
        {r.failure_mode && <span className="badge badge-mode">{r.failure_mode}</span>}
        {r.project && r.project !== 'default' && <span className="muted small">project {r.project}</span>}
      </div>
      {(r.error_type || r.error_message) && (
        <div className="run-error">
          <strong>{r.error_type || 'Error'}</strong>
          {r.error_message && <>: {r.error_message}</>}
        </div>
      )}
      <dl className="facts">
        <Fact label="Agent">{agentLabel(r.agent_name, r.agent_version)}</Fact>
        <Fact label="Model">{r.model || NONE}</Fact>
        <Fact label="Task">
          <span className="mono">{r.task_id || NONE}</span>
          {r.task_category && <span className="muted"> · {r.task_category}</span>}
        </Fact>
        <Fact label="Environment">{r.environment || NONE}</Fact>
        <Fact label="Outcome">
          <StatusBadge status={r.status} /> {r.reward !== null && <span>reward {formatScore(r.reward)}</span>}
        </Fact>
        <Fact label="Tests">{formatTests(r.tests_passed, r.tests_failed)}</Fact>
        <Fact label="Failure mode">
          {r.failure_mode || NONE}
          {failure?.reason && <div className="muted small failure-reason">{failure.reason}</div>}
        </Fact>
        <Fact label="Cost">
          {formatUsd(r.cost_usd)}
          {r.cost_estimated && <span className="muted small"> (partly estimated)</span>}
          {r.budget_usd !== null && <span className="muted small"> of {formatUsd(r.budget_usd)} budget</span>}
        </Fact>
        <Fact label="Tokens">
          {formatTokens(r.input_tokens)} in · {formatTokens(r.output_tokens)} out
          {(r.cache_read_tokens > 0 || r.cache_write_tokens > 0) && (
            <div className="muted small">
              cache {formatTokens(r.cache_read_tokens)} read · {formatTokens(r.cache_write_tokens)} write
              {r.reasoning_tokens > 0 && <> · {formatTokens(r.reasoning_tokens)} reasoning</>}
            </div>
          )}
        </Fact>
        <Fact label="Steps">
          {formatInt(r.steps)}
          {r.max_steps !== null && <span className="muted"> / {formatInt(r.max_steps)} max</span>}
          <div className="muted small">
            {formatInt(r.tool_calls)} tool calls{r.tool_errors > 0 && <>, <span className="error-text">{formatInt(r.tool_errors)} failed</span></>}
          </div>
        </Fact>
        <Fact label="Duration">{r.status === 'running' ? 'running' : formatDuration(r.duration_ms)}</Fact>
        <Fact label="Started">
          <span title={r.started_at}>{formatTimestamp(r.started_at)}</span>
          {r.ended_at && (
            <div className="muted small" title={r.ended_at}>
              ended {formatTimestamp(r.ended_at)}
            </div>
          )}
        </Fact>
        {r.parent_run_id && (
          <Fact label="Parent run">
            <Link className="mono" to={{ pathname: `/runs/${encodeURIComponent(r.parent_run_id)}`, search }}>
              {r.parent_run_id}
            </Link>
          </Fact>
        )}
        {tagEntries.length > 0 && (
          <Fact label="Tags" wide>
            {tagEntries.map(([k, v]) => (
              <Link key={k} className="tag" to={{ pathname: '/runs', search: `?tag=${encodeURIComponent(`${k}:${v}`)}` }} title="Runs with this tag">
                {k}: {v}
              </Link>
            ))}
          </Fact>
        )}
      </dl>
      {detail.scores.length > 0 && (
        <div className="scores">
          <h3>Scores</h3>
          <table className="mini-table">
            <thead>
              <tr>
                <th>Name</th>
                <th className="num">Value</th>
                <th>Source</th>
                <th>Comment</th>
              </tr>
            </thead>
            <tbody>
              {detail.scores.map((s, i) => (
                <tr key={`${s.name}-${i}`}>
                  <td>{s.name}</td>
                  <td className="num">{formatScore(s.value)}</td>
                  <td>{s.source}</td>
                  <td>{s.comment}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
