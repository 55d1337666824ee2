// Starts the Kafka side of a process on its services (serve, ingest) and hangs it on
// `services.kafka`, so the app, /readyz, the ingest status and shutdown find it. It includes the
// process's part in the leader election of the singleton work (docs/kafka.md): the alert
// engine's window rules and outbox run while this process leads.
import { hostname } from 'node:os';
import type { Services } from './services.js';
import { KafkaRuntime, type KafkaRuntimeOptions } from '../ingest/kafka/kafka-runtime.js';
import { KafkaLeaderElection } from '../ingest/kafka/leader-election.js';
import { registerKafkaMetrics } from './service-metrics.js';

export async function attachKafka(services: Services, o: KafkaRuntimeOptions): Promise<KafkaRuntime> {
  const runtime = new KafkaRuntime(services.config, services.log);
  try {
    await runtime.start({ ingestor: services.ingestor, writer: services.writer }, o);
    const k = services.config.kafka;
    const election = new KafkaLeaderElection(runtime.kafka, {
      topic: k.controlTopic,
      groupId: k.leaderGroupId,
      sessionMs: k.leaderSessionMs,
      memberName: `${hostname()} pid ${process.pid}`,
    }, services.log);
    const { alerts, log } = services;
    election.onLead((_epoch, progress) => void alerts.lead(progress).catch((err) => log.warn('starting the alert rules as the leader failed', err)));
    election.onStepDown(() => void alerts.stepDown().catch((err) => log.warn('stopping the alert rules failed', err)));
    runtime.leader = election;
    // Hung on the services first: the alert engine asks `services.kafka.leader` whether it leads.
    services.kafka = runtime;
    await election.start();
  } catch (err) {
    services.kafka = undefined;
    await runtime.close().catch(() => {});
    const brokers = services.config.kafka.brokers.join(',');
    throw new Error(`cannot start Kafka ingestion with brokers ${brokers}: ${(err as Error).message}`);
  }
  registerKafkaMetrics(services.metrics, runtime);
  return runtime;
}
