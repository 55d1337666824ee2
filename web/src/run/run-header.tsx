// The top of the run page: who ran what, how it ended, and what it cost.
import { isSolved } from '../../../analytics/run-outcome.js';
import { ModeBadge } from '../components/mode-badge.js';
import { modeLabel } from '../lib/failure-modes.js';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { RunDetail, ScoreRow } from '../../../schemas/api.js';
import { DataTable, type Column } from '../components/data-table.js';
import { StatusBadge } from '../components/status-badge.js';
import { TimesEstimatedBadge } from '../components/times-estimated.js';
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

/** A score and its place in the run's list (names may repeat: several sources, or over time). */
type Score = ScoreRow & { i: number };

const SCORE_COLUMNS: Column<Score>[] = [
  { id: 'name', header: 'Name', cell: (s) => s.name, sortValue: (s) => s.name },
  { id: 'value', header: 'Value', numeric: true, cell: (s) => formatScore(s.value), sortValue: (s) => s.value },
  { id: 'source', header: 'Source', cell: (s) => s.source, sortValue: (s) => s.source },
  { id: 'comment', header: 'Comment', className: 'wrap-anywhere', cell: (s) => s.comment },
];

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
        {r.failure_mode && <ModeBadge mode={r.failure_mode} />}
        {r.project && r.project !== 'default' && <span className="muted small">project {r.project}</span>}
        <Link className="small run-graph-link" to={{ pathname: `/runs/${encodeURIComponent(r.run_id)}/graph`, search: `?project=${encodeURIComponent(r.project)}` }}>Graph of the run</Link>
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
          {r.failure_mode ? modeLabel(r.failure_mode) : NONE}
          {/* The reason is told once, with where the run ended, under Findings. */}
          {failure?.reason && (
            <div className="small failure-reason">
              <a href="#run-ending">why: see Ending</a>
            </div>
          )}
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
        {detail.children_total > 0 && (
          <Fact label="With subagents">
            <span data-testid="with-subagents">
              {formatUsd(detail.with_children.cost_usd)} · {formatTokens(detail.with_children.input_tokens + detail.with_children.output_tokens)} tokens
            </span>
            <div className="muted small">
              this run and {formatInt(detail.children_total)} subagent run{detail.children_total === 1 ? '' : 's'}
              {detail.with_children.cost_estimated && <> · cost partly estimated</>}
            </div>
          </Fact>
        )}
        <Fact label="Steps">
          {formatInt(r.steps)}
          {r.max_steps !== null && <span className="muted"> / {formatInt(r.max_steps)} max</span>}
          <div className="muted small">
            {formatInt(r.tool_calls)} tool calls{r.tool_errors > 0 && <>, <span className="error-text">{formatInt(r.tool_errors)} failed</span></>}
          </div>
        </Fact>
        {(r.verdict !== null || r.status === 'submitted') && (
          <Fact label="Verdict">
            <span data-testid="run-verdict">{r.verdict === null ? 'none yet' : isSolved(r.verdict) ? 'resolved' : 'not resolved'}</span>
            <div className="muted small">{r.verdict === null ? 'ended by the agent; in no completion rate until a verifier judges it' : "the verifier's resolved score"}</div>
          </Fact>
        )}
        <Fact label="Duration">
          {r.status === 'running' ? 'running' : formatDuration(r.duration_ms)}
          {r.times_estimated && r.status !== 'running' && <span className="muted small"> (estimated)</span>}
        </Fact>
        <Fact label="Started">
          <span title={r.started_at}>{formatTimestamp(r.started_at)}</span>
          {r.times_estimated && <TimesEstimatedBadge />}
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
          <DataTable columns={SCORE_COLUMNS} rows={detail.scores.map((s, i) => ({ ...s, i }))} rowKey={(s) => String(s.i)} compact empty="No scores" testId="run-scores" />
        </div>
      )}
    </section>
  );
}
