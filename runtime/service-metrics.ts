// Hangs a process's parts on its metrics (docs/metrics.md): the writer, the run analyzer, the
// alert deliveries and, once attached (registerKafkaMetrics), Kafka. Values are read from each part's own status at
// scrape time (the same numbers as /api/v1/ingest/status and /api/v1/analysis/status); only the
// writer's insert attempts are observed as they happen (their latency).
import type { KafkaIngestStatus } from '../schemas/ingest-status.js';
import type { KafkaRuntime } from '../ingest/kafka/kafka-runtime.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { AppServices } from '../server/app-services.js';

/** How long one read of the Kafka status serves the metrics of a scrape (they read it at once). */
const KAFKA_STATUS_MS = 1000;

export function registerServiceMetrics(m: Metrics, s: Pick<AppServices, 'writer' | 'analyzer' | 'alerts'>): void {
  // The batching writer.
  s.writer.onInsert((a) => m.insertDuration.observe({ table: a.table, outcome: a.outcome }, a.seconds));
  m.gaugeFrom('writer_buffered_rows', 'Rows buffered by the writer and not stored yet (an insert in progress included)', [], () => [{ value: s.writer.getStats().bufferedRows }]);
  m.gaugeFrom('writer_buffered_bytes', 'Bytes of encoded rows buffered by the writer', [], () => [{ value: s.writer.getStats().bufferedBytes }]);
  m.gaugeFrom('writer_failing', '1 while inserts keep failing (storage outage; they are retried), else 0', [], () => [{ value: s.writer.getStats().failing ? 1 : 0 }]);
  m.counterFrom('writer_rows_written_total', 'Rows stored by the writer', [], () => [{ value: s.writer.getStats().rowsWritten }]);
  m.counterFrom('writer_rows_rejected_total', 'Rows the engine refused for their data (reported to their senders, not stored)', [], () => [{ value: s.writer.getStats().rowsRejected }]);
  m.counterFrom('writer_flushes_total', 'Batches the writer wrote', [], () => [{ value: s.writer.getStats().flushes }]);
  m.counterFrom('writer_insert_failures_total', 'Insert attempts that failed (retried, or split when the engine refused rows)', [], () => [{ value: s.writer.getStats().insertErrors }]);

  // The run analyzer (one status read per scrape serves its metrics).
  let analysis: { at: number; status: ReturnType<AppServices['analyzer']['status']> } | undefined;
  const status = () => {
    const now = Date.now();
    if (!analysis || now - analysis.at > 200) analysis = { at: now, status: s.analyzer.status() };
    return analysis.status;
  };
  m.gaugeFrom('analysis_backlog_runs', 'Runs due for analysis and not analysed yet', [], () => [{ value: status().backlog }]);
  m.gaugeFrom('analysis_scheduled_runs', 'Runs still going, noted for an analysis after their debounce (not a lag)', [], () => [{ value: status().scheduled }]);
  m.gaugeFrom('analysis_in_flight_runs', 'Runs being read back and analysed now', [], () => [{ value: status().in_flight }]);
  m.gaugeFrom('analysis_runs_per_second', 'Runs analysed per second over the last 10 s', [], () => [{ value: status().runs_per_second }]);
  m.gaugeFrom('analysis_delay_seconds', 'How long the run waiting longest past its due time has waited', [], () => [{ value: status().delay_ms / 1000 }]);
  m.gaugeFrom('analysis_lagging', '1 while analysis lags behind ingest (docs/analysis.md), else 0', [], () => [{ value: status().lagging ? 1 : 0 }]);
  m.counterFrom('analysis_runs_analysed_total', 'Run analyses written by this process', [], () => [{ value: status().analysed_total }]);
  m.counterFrom('analysis_failures_total', 'Analysis passes and scan steps that failed (retried)', [], () => [{ value: status().failures }]);

  // Alerts: webhook deliveries from the durable outbox.
  const worker = s.alerts.worker;
  m.counterFrom('alerts_webhook_attempts_total', 'Webhook delivery attempts by outcome: delivered, retry (failed, tried again later), failed (given up)', ['outcome'], () => [
    { labels: { outcome: 'delivered' }, value: worker.stats.delivered },
    { labels: { outcome: 'retry' }, value: worker.stats.retried },
    { labels: { outcome: 'failed' }, value: worker.stats.failed },
  ]);
  m.gaugeFrom('alerts_outbox_pending', 'Webhook deliveries waiting for an attempt or in one', [], () => [{ value: worker.backlog }]);
  // The singleton work (docs/kafka.md): 1 in the one process of a deployment that runs it.
  m.gaugeFrom('leader', '1 while this process leads the singleton work of its kind (alerts: window rules and outbox retries), else 0', ['work'], () => [
    { labels: { work: 'alerts' }, value: s.alerts.leading() ? 1 : 0 },
  ]);
  m.counterFrom('alerts_firings_total', 'Alert state changes by action: fired, resolved, suppressed (cooldown, already firing)', ['action'], () => [
    { labels: { action: 'fired' }, value: s.alerts.stats.fired },
    { labels: { action: 'resolved' }, value: s.alerts.stats.resolved },
    { labels: { action: 'suppressed' }, value: s.alerts.stats.suppressed },
  ]);
}

/** The Kafka side of a process, once attached (serve, ingest): its series appear from then on. */
export function registerKafkaMetrics(m: Metrics, k: KafkaRuntime): void {
  // This process's consumer (not with `serve --no-ingest`).
  const consumer = k.consumer;
  if (consumer) {
    const c = consumer.stats;
    m.followTotals(m.ingestAccepted, () => [{ labels: { source: 'kafka' }, value: c.eventsStored }]);
    m.followTotals(m.ingestRejected, () => [{ labels: { source: 'kafka', reason: 'dead_letter' }, value: c.dlqSent }]);
    m.counterFrom('kafka_dead_letters_total', 'Messages this process sent to the dead-letter topic', [], () => [{ value: c.dlqSent }]);
    m.gaugeFrom('kafka_consumer_paused', '1 while the consumer holds back (storage failing, buffer full), else 0', [], () => [{ value: c.paused ? 1 : 0 }]);
    m.gaugeFrom('kafka_consumer_in_flight_events', 'Events fetched and handed to the writer whose offsets are not committed yet', [], () => [{ value: consumer.eventsInFlight }]);
  }
  const leader = k.leader;
  if (leader) {
    m.gaugeFrom('leader_epoch', "The epoch of this process's lead (the offset of its marker on the control topic); absent when it does not lead", [], () => {
      const st = leader.status();
      return st.epoch === null ? [] : [{ value: st.epoch }];
    });
    m.counterFrom('leader_terms_total', 'Times this process gained the lead', [], () => [{ value: leader.status().terms }]);
  }
  let kafka: { at: number; status: Promise<KafkaIngestStatus | undefined> } | undefined;
  const kafkaStatus = (): Promise<KafkaIngestStatus | undefined> => {
    const now = Date.now();
    if (!kafka || now - kafka.at > KAFKA_STATUS_MS) kafka = { at: now, status: k.status().catch(() => undefined) };
    return kafka.status;
  };
  m.gaugeFrom('kafka_consumer_lag', "Messages of a partition the consumer group has not committed yet (all of the group's workers)", ['topic', 'partition'], async () => {
    const st = await kafkaStatus();
    return (st?.reachable ? st.partitions : []).map((p) => ({ labels: { topic: st!.topic, partition: String(p.partition) }, value: p.lag }));
  });
  m.gaugeFrom('kafka_dead_letter_topic_messages', 'Messages in the dead-letter topic (all workers)', [], async () => {
    const st = await kafkaStatus();
    return st?.dlq_count != null ? [{ value: st.dlq_count }] : [];
  });
  m.gaugeFrom('kafka_reachable', '1 when the broker answered the last status read, else 0', [], async () => {
    const st = await kafkaStatus();
    return st ? [{ value: st.reachable ? 1 : 0 }] : [];
  });
}
