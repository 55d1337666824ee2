// Tasks & environments: which tasks still teach the policy (pass@k, pass^k), which are never
// solved (broken or unsolvable environments) or always solved (saturated), which verifiers are
// flaky, and which environments fail or slow the loop down.
import { useOutletContext } from 'react-router-dom';
import { useApi } from '../api/use-api.js';
import { TableCard } from '../components/chart-card.js';
import { KpiTile } from '../components/kpi-tile.js';
import { Empty, ErrorState, Loading } from '../components/states.js';
import type { FilterState } from '../hooks/use-filters.js';
import { rangeLabel } from '../lib/filters.js';
import { formatInt, formatPercent } from '../lib/format.js';
import { HackingTable } from '../rl/hacking-table.js';
import { passText } from '../lib/rl-view.js';
import { EnvironmentTrendChart } from '../rl/environment-charts.js';
import { rlApi } from '../rl/rl-api.js';
import { EnvironmentTable, FlakyTable, TaskTable, VerdictTable } from '../rl/task-tables.js';
import '../rl/rl.css';
import { useUrlParams } from '../hooks/use-url-params.js';

const MIN_ATTEMPTS = [4, 8, 16, 32];

export function RlTasksPage() {
  const { filters, now, key } = useOutletContext<FilterState>();
  const [params, setParams] = useUrlParams();
  const minAttempts = MIN_ATTEMPTS.includes(Number(params.get('min_attempts'))) ? Number(params.get('min_attempts')) : 8;
  const tasks = useApi(`rl-tasks:${minAttempts}${key}`, (signal) => rlApi.tasks(filters, now, minAttempts, { signal }));
  const envs = useApi(`rl-envs${key}`, (signal) => rlApi.environments(filters, now, { signal }));
  const hackingBy = params.get('hacking_by') === 'task' ? 'task' : 'environment';
  const hacking = useApi(`rl-hacking:${hackingBy}${key}`, (signal) => rlApi.hacking(filters, now, hackingBy, { signal }));
  const h = hacking.state.data;
  const setHackingBy = (v: string) =>
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      next.set('hacking_by', v);
      return next;
    });
  const t = tasks.state.data;
  const e = envs.state.data;
  const setMin = (v: string) =>
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      next.set('min_attempts', v);
      return next;
    });
  const never = t?.rows.filter((r) => r.verdict === 'never_solved') ?? [];
  const always = t?.rows.filter((r) => r.verdict === 'always_solved') ?? [];

  return (
    <div className="page">
      <div className="page-head">
        <h1>Tasks &amp; environments</h1>
        <span className="page-sub">{rangeLabel(filters)}</span>
        <label className="picker">
          <span className="picker-label">Verdict after</span>
          <select value={minAttempts} onChange={(ev) => setMin(ev.target.value)} aria-label="Minimum attempts for a verdict">
            {MIN_ATTEMPTS.map((n) => (
              <option key={n} value={n}>
                {n} attempts
              </option>
            ))}
          </select>
        </label>
        {(tasks.state.status === 'loading' || envs.state.status === 'loading') && (t || e) && <Loading compact label="Updating…" />}
      </div>
      {tasks.state.status === 'error' ? (
        <ErrorState error={tasks.state.error} onRetry={tasks.reload} />
      ) : !t ? (
        <Loading label="Loading tasks…" />
      ) : t.tasks === 0 ? (
        <Empty title="No ended runs with a task in this view">Runs count here once their run_start names a task and they end.</Empty>
      ) : (
        <>
          <div className="kpis">
            <KpiTile label="Tasks" value={formatInt(t.tasks)} detail={`${formatInt(t.attempts)} attempts`} />
            {t.ks.map((k) => (
              <KpiTile key={k} label={`pass@${k}`} value={passText(t.mean_pass_at[String(k)])} detail={`pass^${k} ${passText(t.mean_pass_hat[String(k)])} · mean over tasks with ≥ ${k} attempts`} />
            ))}
            <KpiTile label="Never solved" value={formatInt(t.never_solved)} detail={`after ≥ ${minAttempts} attempts: broken or unsolvable?`} />
            <KpiTile label="Always solved" value={formatInt(t.always_solved)} detail="saturated: no signal left" />
            <KpiTile label="Flaky verifiers" value={formatInt(t.flaky.length)} detail="same actions, different verdicts" />
            {h && (
              <KpiTile
                label="Hacking evidence"
                value={formatInt(h.with_evidence)}
                detail={`${formatPercent(h.runs ? h.with_evidence / h.runs : null)} of ${formatInt(h.runs)} ended runs`}
                hint="Runs whose actions show reward-hacking evidence: the table below says which kind, where"
              />
            )}
          </div>
          {e && e.environments.length > 0 && (
            <div className="grid-2">
              <EnvironmentTrendChart data={e} metric="tool_ms_p50" testId="rl-env-tool-chart" />
              <EnvironmentTrendChart data={e} metric="env_share" testId="rl-env-share-chart" />
              <EnvironmentTrendChart data={e} metric="error_rate" testId="rl-env-error-chart" />
              <EnvironmentTrendChart data={e} metric="tool_ms_p95" testId="rl-env-p95-chart" />
            </div>
          )}
          {envs.state.status === 'error' && <ErrorState error={envs.state.error} onRetry={envs.reload} title="Environments could not be loaded" />}
          {e && e.environments.length > 0 && (
            <TableCard title="Environments" subtitle="error rate, sandbox time and its share of the steps' wall time">
              <EnvironmentTable key={key} rows={e.environments} />
            </TableCard>
          )}
          {hacking.state.status === 'error' && <ErrorState error={hacking.state.error} onRetry={hacking.reload} title="Reward-hacking evidence could not be loaded" />}
          {h && (
            <TableCard
              title="Reward-hacking evidence"
              subtitle="ended runs whose actions read future history, fetched upstream source, or touched the tests · success with and without it"
              actions={
                <div className="segmented" role="group" aria-label="Evidence per">
                  {(['environment', 'task'] as const).map((b) => (
                    <button key={b} type="button" className={hackingBy === b ? 'active' : undefined} aria-pressed={hackingBy === b} onClick={() => setHackingBy(b)}>
                      per {b}
                    </button>
                  ))}
                </div>
              }
            >
              <HackingTable key={`${hackingBy}${key}`} rows={h.groups} by={h.by} />
            </TableCard>
          )}
          <div className="grid-2">
            <TableCard title="Never solved" subtitle={`no success in ≥ ${minAttempts} attempts: candidate broken or unsolvable environments`}>
              <VerdictTable key={`never${minAttempts}${key}`} rows={never} testId="rl-never-table" empty="None" />
            </TableCard>
            <TableCard title="Always solved" subtitle={`every one of ≥ ${minAttempts} attempts succeeded: saturated`}>
              <VerdictTable key={`always${minAttempts}${key}`} rows={always} testId="rl-always-table" empty="None" />
            </TableCard>
          </div>
          <TableCard title="Flaky verifiers" subtitle="identical action sequences of a task that got different outcomes or rewards">
            <FlakyTable key={`${minAttempts}${key}`} rows={t.flaky} />
          </TableCard>
          <TableCard
            title="Tasks"
            subtitle={`${t.rows.length < t.tasks ? `the ${formatInt(t.rows.length)} most attempted of ${formatInt(t.tasks)}` : `all ${formatInt(t.tasks)}`} · most attempted first until a header is clicked · pass@k unbiased (— when attempts < k)`}
          >
            <TaskTable key={`${minAttempts}${key}`} rows={t.rows} ks={t.ks} testId="rl-task-table" />
          </TableCard>
        </>
      )}
    </div>
  );
}
