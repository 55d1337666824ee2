// Ingest panel: how events are getting in, refreshed every 2 s. Throughput of POST /v1/events
// over the last minute and its recent rejections; with Kafka also the consumer group's lag per
// partition, dead letters (the latest with their reasons), the consumer's state and the last error.
import { useEffect } from 'react';
import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { getJson } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { ErrorState, Loading } from '../components/states.js';
import { KpiTile } from '../components/kpi-tile.js';
import { formatInt, formatNumber, formatRelative } from '../lib/format.js';
import type { IngestActivity, IngestStatus, RecentDeadLetter } from '../../../schemas/ingest-status.js';

export function IngestPage() {
  const { state, reload } = useApi<IngestStatus>('/ingest/status', (signal) => getJson<IngestStatus>('/ingest/status', { signal }));
  useEffect(() => {
    const t = setInterval(reload, 2_000);
    return () => clearInterval(t);
  }, [reload]);
  const s = state.data;
  if (!s && state.status === 'error') return <ErrorState error={state.error} onRetry={reload} />;
  if (!s) return <Loading label="Loading ingest status…" />;
  const w = s.writer;
  const a = s.activity;
  const kafka = s.mode === 'kafka' ? s : null;
  const c = kafka?.consumer ?? null;
  const eventsPerSecond = c ? c.events_per_second : a?.events_per_second;
  return (
    <div className="page ingest-page">
      <div className="page-head">
        <h1>Ingest</h1>
        {state.status === 'error' && <span className="error-text small">refresh failed: {state.error.message}</span>}
      </div>
      <p className="muted">
        {kafka ? (
          <>
            Kafka {kafka.brokers.join(', ')} · topic <code>{kafka.topic}</code> · group <code>{kafka.group_id}</code> · dead letters{' '}
            <code>{kafka.dlq_topic}</code> · broker {kafka.reachable ? 'reachable' : 'unreachable'}
          </>
        ) : (
          <>Embedded mode: events are written straight into the local engine (no Kafka configured), so there is no lag and no dead-letter topic.</>
        )}
      </p>
      <div className="kpis kpis-compact">
        <KpiTile
          label="Events/s"
          value={eventsPerSecond === undefined ? '—' : formatNumber(eventsPerSecond, eventsPerSecond < 10 ? 1 : 0)}
          detail={c ? `${formatInt(c.events_consumed)} consumed here · ${formatInt(c.in_flight_events)} being stored` : a ? `${formatInt(a.accepted_total)} accepted since start` : undefined}
        />
        <KpiTile
          label="Lag"
          value={kafka ? (kafka.lag_total === null ? '—' : formatInt(kafka.lag_total)) : formatInt(w.buffered_rows)}
          detail={kafka ? 'messages not yet stored' : 'rows buffered, not yet written'}
        />
        <KpiTile
          label="Dead letters"
          value={kafka ? (kafka.dlq_count === null ? '—' : formatInt(kafka.dlq_count)) : '—'}
          detail={kafka ? (c ? `${formatInt(c.dlq_sent)} sent by this process` : undefined) : 'no dead-letter topic without Kafka'}
        />
        <KpiTile label="Rejected" value={a ? formatInt(a.rejected_total) : '—'} detail="events refused by POST /v1/events" />
        <KpiTile label="Rows written" value={formatInt(w.rows_written)} detail={`${formatInt(w.flushes)} flushes · ${formatInt(w.insert_errors)} insert errors`} />
        <KpiTile
          label="State"
          value={kafka ? (!c ? 'producer only' : c.paused ? 'paused' : c.running ? 'consuming' : 'stopped') : w.failing ? 'failing' : 'ok'}
          detail={c?.paused ? c.paused_reason : w.failing ? 'storage failing: inserts are retried' : undefined}
        />
      </div>
      {kafka?.last_error && (
        <div className="state state-error" role="alert">
          <div className="state-title">Last error {formatRelative(kafka.last_error.at)}</div>
          <div className="state-body">{kafka.last_error.message}</div>
        </div>
      )}
      {a && <ThroughputChart activity={a} />}
      {kafka && (
        <section className="card table-card" aria-label="Partitions">
          <table className="runs-table">
            <thead>
              <tr>
                <th>Partition</th>
                <th className="num">Committed</th>
                <th className="num">High watermark</th>
                <th className="num">Lag</th>
                <th>Consumed here</th>
              </tr>
            </thead>
            <tbody>
              {kafka.partitions.map((p) => (
                <tr key={p.partition}>
                  <td>{p.partition}</td>
                  <td className="num">{p.committed ?? '—'}</td>
                  <td className="num">{p.high_watermark}</td>
                  <td className="num">{formatInt(p.lag)}</td>
                  <td>{c?.assigned_partitions.includes(p.partition) ? 'yes' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {c && <DeadLetters letters={c.recent_dead_letters} dlqTopic={kafka!.dlq_topic} />}
      {a && <Rejections activity={a} />}
    </div>
  );
}

function ThroughputChart({ activity }: { activity: IngestActivity }) {
  const rows = activity.per_second.map((n, i) => ({ s: i - activity.per_second.length, n }));
  return (
    <section className="card chart-card" aria-label="Throughput">
      <div className="card-head">
        <h3>Accepted events per second</h3>
        <span className="muted small">POST /v1/events on this server, last 60 s</span>
      </div>
      <div className="chart-box chart-box-small">
        <ResponsiveContainer width="100%" height="100%">
          <AreaChart data={rows} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="var(--c-grid)" vertical={false} />
            <XAxis dataKey="s" tickFormatter={(v: number) => `${v}s`} tick={{ fontSize: 11, fill: 'var(--c-muted)' }} tickLine={false} axisLine={{ stroke: 'var(--c-grid)' }} minTickGap={24} />
            <YAxis allowDecimals={false} tick={{ fontSize: 11, fill: 'var(--c-muted)' }} tickLine={false} axisLine={false} width={48} />
            <Tooltip contentStyle={{ fontSize: 12, borderRadius: 6, border: '1px solid var(--c-border)' }} labelFormatter={(v) => `${v} s`} formatter={(v) => [formatInt(Number(v)), 'events']} />
            <Area dataKey="n" stroke="var(--c-accent)" fill="var(--c-accent-soft)" strokeWidth={1.5} isAnimationActive={false} />
          </AreaChart>
        </ResponsiveContainer>
      </div>
    </section>
  );
}

function Rejections({ activity }: { activity: IngestActivity }) {
  const list = activity.recent_rejections;
  return (
    <section className="card table-card" aria-label="Recent rejections">
      <div className="card-head">
        <h3>Recent rejections</h3>
        <span className="muted small">the latest events POST /v1/events refused, newest first</span>
      </div>
      {list.length === 0 ? (
        <div className="state state-empty">No event has been rejected since this server started.</div>
      ) : (
        <table className="runs-table rejections-table">
          <thead>
            <tr>
              <th>When</th>
              <th className="num">Event #</th>
              <th>Reason</th>
            </tr>
          </thead>
          <tbody>
            {list.map((r, i) => (
              <tr key={`${r.at}-${i}`}>
                <td className="nowrap" title={r.at}>
                  {formatRelative(r.at)}
                </td>
                <td className="num">{r.index < 0 ? '—' : formatInt(r.index)}</td>
                <td className="mono small">{r.error}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function DeadLetters({ letters, dlqTopic }: { letters: readonly RecentDeadLetter[]; dlqTopic: string }) {
  return (
    <section className="card table-card" aria-label="Recent dead letters">
      <div className="card-head">
        <h3>Recent dead letters</h3>
        <span className="muted small">
          the latest messages this worker sent to <code>{dlqTopic}</code>, newest first
        </span>
      </div>
      {letters.length === 0 ? (
        <div className="state state-empty">No message has gone to the dead-letter topic since this worker started.</div>
      ) : (
        <table className="runs-table rejections-table">
          <thead>
            <tr>
              <th>When</th>
              <th className="num">Partition</th>
              <th className="num">Offset</th>
              <th>Reason</th>
            </tr>
          </thead>
          <tbody>
            {letters.map((d, i) => (
              <tr key={`${d.partition}-${d.offset}-${i}`}>
                <td className="nowrap" title={d.at}>
                  {formatRelative(d.at)}
                </td>
                <td className="num">{d.partition}</td>
                <td className="num">{d.offset}</td>
                <td className="mono small">{d.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
