// Exits 0 when the Kafka broker at argv[2] (host:port) answers a metadata request, 1 otherwise.
// Used by kafka-start.sh to wait for readiness; bounded by its own timeouts.
import kafkajs from 'kafkajs';

const broker = process.argv[2] ?? '127.0.0.1:9092';
const kafka = new kafkajs.Kafka({
  clientId: 'trajscope-kafka-ping',
  brokers: [broker],
  connectionTimeout: 1000,
  requestTimeout: 2000,
  retry: { retries: 0 },
  logLevel: kafkajs.logLevel.NOTHING,
});
const admin = kafka.admin();
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  await admin.disconnect();
  process.exit(cluster.brokers.length > 0 ? 0 : 1);
} catch {
  await admin.disconnect().catch(() => {});
  process.exit(1);
}
