// GET /api/v1/ingest/status: shared by the server (ingest/kafka, server/ingest-status) and the
// dashboard's ingest panel.

export interface IngestWriterStatus {
  rows_written: number;
  buffered_rows: number;
  flushes: number;
  insert_errors: number;
  /** True while inserts keep failing (storage outage). */
  failing: boolean;
}

export interface IngestPartitionStatus {
  partition: number;
  /** Next offset the group will read (committed), null before the first commit. */
  committed: string | null;
  high_watermark: string;
  lag: number;
}

/** A message sent to the dead-letter topic: where it came from and why. */
export interface RecentDeadLetter {
  at: string;
  partition: number;
  offset: string;
  reason: string;
}

export interface KafkaIngestStatus {
  mode: 'kafka';
  brokers: string[];
  topic: string;
  dlq_topic: string;
  group_id: string;
  reachable: boolean;
  /** This process's consumer (null when it only produces: `serve --no-ingest`). */
  consumer: {
    running: boolean;
    paused: boolean;
    paused_reason: string;
    assigned_partitions: number[];
    events_consumed: number;
    events_per_second: number;
    batches: number;
    dlq_sent: number;
    /** The latest messages this process sent to the dead-letter topic, newest first (at most 50). */
    recent_dead_letters: RecentDeadLetter[];
    /** Events fetched and handed to the writer whose offsets are not committed yet. */
    in_flight_events: number;
  } | null;
  producer: { events_produced: number } | null;
  /** The consumer group's position on every partition of the topic (all workers). */
  partitions: IngestPartitionStatus[];
  lag_total: number | null;
  /** Messages in the dead-letter topic. */
  dlq_count: number | null;
  last_error: { message: string; at: string } | null;
}

/** What POST /v1/events of this process has seen lately. */
export interface IngestActivity {
  /** Accepted events per second over the last 10 s. */
  events_per_second: number;
  /** Accepted events in each of the last 60 seconds, oldest first. */
  per_second: number[];
  accepted_total: number;
  rejected_total: number;
  /** The latest rejected events, newest first (at most 50). */
  recent_rejections: Array<{ at: string; source: string; index: number; error: string }>;
}

export type IngestStatus =
  | ({ writer: IngestWriterStatus; activity?: IngestActivity } & KafkaIngestStatus)
  | { mode: 'embedded'; writer: IngestWriterStatus; activity?: IngestActivity };
