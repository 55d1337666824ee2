// Ingest panel: how events are getting in. With Kafka: the consumer group's lag per partition,
// this server's events/s, rows written, dead letters and the last error; refreshed every 2 s.
import { useEffect } from 'react';
import { getJson } from '../api/client.js';
import { useApi } from '../api/use-api.js';
import { ErrorState, Loading } from '../components/states.js';
import { KpiTile } from '../components/kpi-tile.js';
import { formatInt, formatRelative } from '../lib/format.js';
import type { IngestStatus } from '../../../schemas/ingest-status.js';

export function IngestPage() {
  const { state, reload } = useApi<IngestStatus>('/ingest/status', (signal) => getJson<IngestStatus>('/ingest/status', { signal }));
  useEffect(() => {
    const t = setInterval(reload, 2_000);
    return () => clearInterval(t);
  }, [reload]);
  const s = state.data;
  if (!s && state.status === 'error') return <ErrorState error={state.error} onRetry={reload} />;
  if (!s) return <Loading />;
  const w = s.writer;
  if (s.mode === 'embedded') {
    return (
      <div className="page ingest-page">
        <h1>Ingest</h1>
        <p className="muted">Embedded mode: events are written straight into the local engine (no Kafka configured).</p>
        <div className="kpis">
          <KpiTile label="Rows written" value={formatInt(w.rows_written)} />
          <KpiTile label="Buffered rows" value={formatInt(w.buffered_rows)} />
          <KpiTile label="Storage" value={w.failing ? 'failing' : 'ok'} detail={`${formatInt(w.insert_errors)} insert errors`} />
        </div>
      </div>
    );
  }
  const c = s.consumer;
  return (
    <div className="page ingest-page">
      <h1>Ingest</h1>
      <p className="muted">
        Kafka {s.brokers.join(', ')} · topic <code>{s.topic}</code> · group <code>{s.group_id}</code> · dead letters{' '}
        <code>{s.dlq_topic}</code> · broker {s.reachable ? 'reachable' : 'unreachable'}
      </p>
      <div className="kpis">
        <KpiTile label="Events/s" value={c ? formatInt(c.events_per_second) : '—'} detail={c ? `${formatInt(c.events_consumed)} consumed here` : 'no consumer in this process'} />
        <KpiTile label="Lag" value={s.lag_total === null ? '—' : formatInt(s.lag_total)} detail="messages not yet stored" />
        <KpiTile label="Rows written" value={formatInt(w.rows_written)} detail={`${formatInt(w.buffered_rows)} buffered`} />
        <KpiTile label="Dead letters" value={s.dlq_count === null ? '—' : formatInt(s.dlq_count)} detail={c ? `${formatInt(c.dlq_sent)} sent by this process` : undefined} />
        <KpiTile
          label="State"
          value={!c ? 'producer only' : c.paused ? 'paused' : c.running ? 'consuming' : 'stopped'}
          detail={c?.paused ? c.paused_reason : w.failing ? 'storage failing' : undefined}
        />
      </div>
      {s.last_error && (
        <div className="state state-error" role="alert">
          <div className="state-title">Last error {formatRelative(s.last_error.at)}</div>
          <div className="state-body">{s.last_error.message}</div>
        </div>
      )}
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
            {s.partitions.map((p) => (
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
    </div>
  );
}
