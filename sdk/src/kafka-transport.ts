// Sends batches straight to the Kafka topic Trajscope's ingest workers consume, in the format the
// server's own producer writes: one message per event, key = run_id (one run stays ordered in one
// partition), value = the event's JSON, gzip, acknowledged by all in-sync replicas. kafkajs is an
// optional peer dependency, loaded only when this transport is used.
import type { TrajscopeEvent } from './events.js';
import { TransportError, type DeliveryResult, type Transport } from './transport.js';

/** The part of a kafkajs producer this transport uses. */
export interface KafkaProducerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(record: {
    topic: string;
    acks?: number;
    compression?: number;
    messages: { key: string; value: string }[];
  }): Promise<unknown>;
}

export interface KafkaTransportOptions {
  /** Brokers, e.g. ['127.0.0.1:9092'] (ignored when `producer` is given). */
  brokers?: string[];
  /** Default `trajscope.events` (the server's KAFKA_TOPIC). */
  topic?: string;
  clientId?: string;
  /** A kafkajs producer of your own (not yet connected, or connected: connect() is called once). */
  producer?: KafkaProducerLike;
}

const GZIP = 1; // kafkajs CompressionTypes.GZIP

export class KafkaTransport implements Transport {
  private producer: Promise<KafkaProducerLike> | null = null;
  readonly topic: string;

  constructor(private readonly o: KafkaTransportOptions) {
    this.topic = o.topic ?? 'trajscope.events';
    if (!o.producer && !o.brokers?.length) throw new TypeError('KafkaTransport needs `brokers` or a `producer`');
  }

  async send(events: readonly TrajscopeEvent[]): Promise<DeliveryResult> {
    let producer: KafkaProducerLike;
    try {
      producer = await this.connected();
    } catch (err) {
      this.producer = null;
      throw new TransportError(`cannot connect to Kafka: ${(err as Error).message}`, true, { cause: err });
    }
    try {
      await producer.send({
        topic: this.topic,
        acks: -1,
        compression: GZIP,
        messages: events.map((e) => ({ key: e.run_id, value: JSON.stringify(e) })),
      });
    } catch (err) {
      throw new TransportError(`Kafka did not acknowledge the events: ${(err as Error).message}`, true, { cause: err });
    }
    return { accepted: events.length, rejected: [] };
  }

  async close(): Promise<void> {
    const p = this.producer;
    this.producer = null;
    if (p) await (await p).disconnect().catch(() => {});
  }

  private connected(): Promise<KafkaProducerLike> {
    this.producer ??= (async () => {
      const producer = this.o.producer ?? (await createProducer(this.o));
      await producer.connect();
      return producer;
    })();
    return this.producer;
  }
}

async function createProducer(o: KafkaTransportOptions): Promise<KafkaProducerLike> {
  const name = 'kafkajs'; // a variable, so the package builds and loads without kafkajs installed
  let mod: any;
  try {
    mod = await import(name);
  } catch {
    throw new Error('the Kafka transport needs the kafkajs package: npm install kafkajs');
  }
  const { Kafka, logLevel } = mod.default ?? mod;
  const kafka = new Kafka({ clientId: o.clientId ?? 'trajscope-sdk', brokers: o.brokers, logLevel: logLevel.NOTHING });
  return kafka.producer({ allowAutoTopicCreation: false, idempotent: false });
}
