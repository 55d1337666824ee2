// Elects one leader among the processes of a deployment for the work that must run once
// (docs/kafka.md, "Singleton work and leader election"): every process joins one consumer group
// on a one-partition control topic, and the member the group assigns partition 0 leads.
//
// - Taking over: on its assignment, the member appends its marker to the control topic; the
//   marker's offset is its epoch (larger than every earlier leader's). It reads the topic from
//   its start up to its marker (the earlier leaders' progress, control-log.ts), and only then
//   leads.
// - Stepping down: on a rebalance, a crash or stop of the consumer, an assignment without the
//   partition, a newer marker, or when no heartbeat has succeeded for half the session timeout.
//   The group gives the partition to another member only once this one has rejoined or its
//   session timed out, so a deposed leader has stopped before its successor starts.
// - Nothing is committed: each assignment reads the topic from its start again.
import type { Consumer, Kafka, Producer } from 'kafkajs';
import type { Logger } from '../../config/logger.js';
import { ControlLogFold, LEADER_KEY, type ControlRecord } from './control-log.js';
import { waitForLeaders } from './topics.js';

export interface LeaderElectionOptions {
  topic: string;
  groupId: string;
  /** The broker expels a member this long after its last heartbeat. */
  sessionMs: number;
  /** Names this member in its marker and the log lines (host:port, pid). */
  memberName: string;
  /** How often leadership is re-checked (heartbeat freshness). */
  checkMs?: number;
}

export interface LeadershipStatus {
  leading: boolean;
  /** The epoch of this member's lead (its marker's offset), or null when it does not lead. */
  epoch: number | null;
  /** Times this process gained the lead. */
  terms: number;
}

/** Written while not leading (the lead was lost after the caller checked). */
export class NotLeaderError extends Error {
  override readonly name = 'NotLeaderError';
  constructor(what: string) {
    super(`not the leader any more: ${what} was not written`);
  }
}

export interface LeaderFacts {
  holdsPartition: boolean;
  epoch: number | null;
  caughtUp: boolean;
  lastHeartbeatAt: number;
}

/** Whether a member leads now: it holds the partition, has read up to its marker, and heard from the group lately. */
export function leadsNow(f: LeaderFacts, now: number, sessionMs: number): boolean {
  return f.holdsPartition && f.epoch !== null && f.caughtUp && now - f.lastHeartbeatAt < sessionMs / 2;
}

export class KafkaLeaderElection {
  private consumer: Consumer | null = null;
  private producer: Producer | null = null;
  private readonly facts: LeaderFacts = { holdsPartition: false, epoch: null, caughtUp: false, lastHeartbeatAt: 0 };
  private fold = new ControlLogFold();
  private wasLeading = false;
  private terms = 0;
  private timer: NodeJS.Timeout | null = null;
  private markerPending: Promise<void> | null = null;
  private closed = false;
  private readonly listeners: { lead: ((epoch: number, log: ControlLogFold) => void)[]; stepDown: ((reason: string) => void)[] } = { lead: [], stepDown: [] };
  private lastReason = '';

  constructor(
    private readonly kafka: Kafka,
    private readonly o: LeaderElectionOptions,
    private readonly log: Logger,
  ) {}

  /** Called when this process gains the lead: `log` is the earlier leaders' progress. */
  onLead(f: (epoch: number, log: ControlLogFold) => void): void {
    this.listeners.lead.push(f);
  }

  /** Called when this process loses the lead (its work must stop). */
  onStepDown(f: (reason: string) => void): void {
    this.listeners.stepDown.push(f);
  }

  get leading(): boolean {
    return leadsNow(this.facts, Date.now(), this.o.sessionMs);
  }

  status(): LeadershipStatus {
    const leading = this.leading;
    return { leading, epoch: leading ? this.facts.epoch : null, terms: this.terms };
  }

  async start(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await ensureControlTopic(admin, this.o.topic);
    } finally {
      await admin.disconnect().catch(() => {});
    }
    this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await this.producer.connect();
    const session = this.o.sessionMs;
    const beat = Math.max(200, Math.floor(session / 6));
    this.consumer = this.kafka.consumer({
      groupId: this.o.groupId,
      sessionTimeout: session,
      rebalanceTimeout: Math.max(session * 2, 10_000),
      heartbeatInterval: beat,
      // A fetch of the idle topic waits at most this long; the heartbeat follows it.
      maxWaitTimeInMs: beat,
      allowAutoTopicCreation: false,
    });
    const c = this.consumer;
    const ev = c.events;
    c.on(ev.HEARTBEAT, () => {
      this.facts.lastHeartbeatAt = Date.now();
    });
    c.on(ev.GROUP_JOIN, (e) => {
      this.facts.lastHeartbeatAt = Date.now();
      const holds = (e.payload.memberAssignment[this.o.topic] ?? []).includes(0);
      this.lose(holds ? 'the group rebalanced' : 'the partition went to another member');
      this.facts.holdsPartition = holds;
      if (!holds) return;
      this.claim();
      // Read from the start: the earlier leaders' progress (the topic is compacted, never truncated from its start).
      try {
        c.seek({ topic: this.o.topic, partition: 0, offset: '0' });
      } catch (err) {
        this.log.warn('leader election: cannot read the control topic from its start; this process does not lead', err);
        this.lose('the control topic could not be read');
      }
    });
    c.on(ev.REBALANCING, () => this.lose('the group is rebalancing'));
    c.on(ev.CRASH, (e) => this.lose(`the election consumer crashed (${e.payload.error.message})`));
    c.on(ev.STOP, () => this.lose('the election consumer stopped'));
    await c.connect();
    await c.subscribe({ topic: this.o.topic, fromBeginning: true });
    await c.run({
      autoCommit: false,
      eachMessage: async ({ message }) => this.read(Number(message.offset), message),
    });
    this.timer = setInterval(() => this.check(), this.o.checkMs ?? 200);
    this.timer.unref();
  }

  /**
   * Appends a record of this leader's progress (with its epoch) and waits until the broker has
   * it. Refused when this process does not lead (NotLeaderError). `value` null is a tombstone.
   */
  async append(key: string, value: unknown): Promise<void> {
    const epoch = this.facts.epoch;
    if (!this.leading || epoch === null || !this.producer) throw new NotLeaderError(key);
    await this.producer.send({
      topic: this.o.topic,
      acks: -1,
      messages: [{ key, value: value === null ? null : JSON.stringify(value), headers: { epoch: String(epoch) } }],
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.lose('the process is stopping');
    this.check();
    await this.consumer?.disconnect().catch(() => {});
    await this.producer?.disconnect().catch(() => {});
  }

  /** On the assignment of the partition: the marker, whose offset becomes the epoch once read back. */
  private claim(): void {
    this.fold = new ControlLogFold();
    this.facts.caughtUp = false;
    this.facts.epoch = null;
    const p = this.producer!.send({
      topic: this.o.topic,
      acks: -1,
      messages: [{ key: LEADER_KEY, value: JSON.stringify({ member: this.o.memberName, at: new Date().toISOString() }) }],
    });
    const marker = p.then((r) => {
      if (markerPending !== this.markerPending || !this.facts.holdsPartition) return;
      const epoch = Number(r[0].baseOffset);
      this.facts.epoch = epoch;
      // Read back already (the consumer may be ahead of the producer's answer)?
      if (this.fold.fence === epoch) this.caughtUpTo(epoch);
      else if (this.fold.fence > epoch) this.lose(`a newer leader took over (epoch ${this.fold.fence})`);
    });
    const markerPending = marker.catch((err) => {
      this.log.warn(`leader election: writing the leader marker failed; this process does not lead`, err);
      this.facts.holdsPartition = false;
    });
    this.markerPending = markerPending;
  }

  private read(offset: number, m: { key: Buffer | null; value: Buffer | null; headers?: Record<string, unknown> }): void {
    const key = m.key?.toString() ?? '';
    const h = m.headers?.epoch;
    const epoch = key === LEADER_KEY ? offset : Number(h === undefined ? -1 : String(h));
    let value: unknown = null;
    if (m.value) {
      try {
        value = JSON.parse(m.value.toString());
      } catch {
        this.log.warn(`leader election: control record at offset ${offset} (key ${key}) is not JSON; ignored`);
        return;
      }
    }
    const r: ControlRecord = { offset, key, epoch, value };
    this.fold.add(r);
    if (key !== LEADER_KEY) return;
    const mine = this.facts.epoch;
    if (mine !== null && offset === mine) this.caughtUpTo(mine);
    else if (mine !== null && offset > mine) this.lose(`a newer leader took over (epoch ${offset})`);
  }

  private caughtUpTo(epoch: number): void {
    if (this.facts.epoch === epoch) this.facts.caughtUp = true;
    this.check();
  }

  /** Clears the lead (the partition, epoch); `reason` is logged if this process led. */
  private lose(reason: string): void {
    this.facts.holdsPartition = false;
    this.facts.epoch = null;
    this.facts.caughtUp = false;
    this.markerPending = null;
    if (reason) this.lastReason = reason;
    this.check();
  }

  /** Tells the listeners when the lead changed (also when the heartbeats went stale, or came back). */
  private check(): void {
    const now = this.closed ? false : this.leading;
    if (now === this.wasLeading) return;
    this.wasLeading = now;
    if (now) {
      this.terms++;
      const epoch = this.facts.epoch!;
      this.log.info(`leader election: this process leads (epoch ${epoch}, group ${this.o.groupId}); it runs the singleton work`);
      for (const f of this.listeners.lead) f(epoch, this.fold);
    } else {
      const stale = this.facts.holdsPartition && Date.now() - this.facts.lastHeartbeatAt >= this.o.sessionMs / 2;
      const reason = stale ? `no heartbeat succeeded for ${Math.round((Date.now() - this.facts.lastHeartbeatAt) / 1000)} s` : this.lastReason || 'lost the partition';
      this.log.info(`leader election: this process no longer leads (${reason}); its singleton work stops`);
      for (const f of this.listeners.stepDown) f(reason);
    }
  }
}

/** Creates the control topic when missing: one partition, compacted (the newest record per key is kept). */
async function ensureControlTopic(admin: import('kafkajs').Admin, topic: string): Promise<void> {
  const existing = new Set(await admin.listTopics());
  if (!existing.has(topic)) {
    try {
      await admin.createTopics({
        waitForLeaders: false,
        topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
      });
    } catch (err) {
      // Another process created it first: fine as long as it exists now.
      if (!(await admin.listTopics()).includes(topic)) throw err;
    }
  }
  await waitForLeaders(admin, [topic], 30_000);
}
