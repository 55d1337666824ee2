// Helpers of the leader election test: `trajscope serve` child processes of one deployment
// (same brokers, same control topic and group), each on its own data folder, and what each says
// about its lead (/metrics, /readyz). Every wait is bounded.
import { cpSync } from 'node:fs';
import { serveChild, type ServeChild } from '../helpers/cli-child.js';
import { newDataDir } from '../helpers/test-server.js';
import { parseExposition, valueOf } from '../helpers/prometheus-text.js';
import type { Answer, Received } from '../alerts/webhook-receiver.js';

export interface Member {
  name: string;
  dataDir: string;
  serve: ServeChild;
  alive: boolean;
}

/** The name of the alert rule a webhook delivery is of. */
export const ruleOf = (r: Received): string => r.body?.rule?.name ?? '';

/** A receiver's answers: the first delivery of `rule` is never answered (in flight when its sender stops), every other one 200. */
export function hangFirstDeliveryOf(rule: string): (n: number, r: Received) => Answer {
  let hung = false;
  return (_n, r) => {
    if (ruleOf(r) === rule && !hung) {
      hung = true;
      return 'hang';
    }
    return 200;
  };
}

/** Copies a seeded data folder (the same rules, with the same ids, in every process). */
export function copyDataDir(from: string): string {
  const to = newDataDir();
  cpSync(from, to, { recursive: true });
  return to;
}

/** trajscope_leader{work="alerts"} of a member: 1, 0, or null when it does not answer. */
export async function leaderGauge(m: Member): Promise<number | null> {
  try {
    const res = await fetch(`${m.serve.url}/metrics`, { signal: AbortSignal.timeout(5_000) });
    if (!res.ok) return null;
    return valueOf(parseExposition(await res.text()), 'trajscope_leader', { work: 'alerts' });
  } catch {
    return null;
  }
}

/** The `leader` field of a member's /readyz. */
export async function readyLeader(m: Member): Promise<{ alerts: boolean; epoch: number | null } | undefined> {
  const res = await fetch(`${m.serve.url}/readyz`, { signal: AbortSignal.timeout(5_000) });
  return ((await res.json()) as { leader?: { alerts: boolean; epoch: number | null } }).leader;
}

/** The members that report leading now (those that answer). */
export async function leaders(members: readonly Member[]): Promise<Member[]> {
  const live = members.filter((m) => m.alive);
  const gauges = await Promise.all(live.map((m) => leaderGauge(m)));
  return live.filter((_, i) => gauges[i] === 1);
}

/**
 * Waits until exactly one live member leads and still does `stableChecks` checks later (every
 * 250 ms), within `timeoutMs`; returns it.
 */
export async function oneStableLeader(members: readonly Member[], timeoutMs: number, stableChecks = 4): Promise<Member> {
  const until = Date.now() + timeoutMs;
  let last: string | null = null;
  let same = 0;
  let seen = '';
  for (let i = 0; i < 10_000 && Date.now() < until; i++) {
    const l = await leaders(members);
    seen = l.map((m) => m.name).join(',') || 'none';
    if (l.length === 1 && l[0].name === last) same++;
    else same = 0;
    last = l.length === 1 ? l[0].name : null;
    if (same >= stableChecks) return l[0];
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no single stable leader within ${timeoutMs} ms (last seen leading: ${seen})`);
}

/**
 * The settings every process of one deployment shares: the broker, the topic and its group (one
 * partition), the lead's session timeout; POST /v1/events writes each process's own storage, so
 * every process holds the same data.
 */
export function deploymentEnv(broker: string, topic: string, sessionMs: number): Record<string, string> {
  return {
    KAFKA_BROKERS: broker,
    KAFKA_TOPIC: topic,
    KAFKA_GROUP_ID: `${topic}.group`,
    KAFKA_PARTITIONS: '1',
    KAFKA_PRODUCE: 'false',
    TRAJSCOPE_LEADER_SESSION_MS: String(sessionMs),
  };
}

export async function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
}

/** One ended run in `project`, started now. */
export function oneRun(project: string, runId: string): object[] {
  const t = Date.now();
  return [
    { type: 'run_start', project, run_id: runId, ts: t, model: 'm1', agent: { name: 'a', version: '1' }, task: { id: 't', category: 'c' } },
    { type: 'step', project, run_id: runId, step: 0, ts: t + 10, input_tokens: 10, output_tokens: 1, cost_usd: 0.01, action: 'act' },
    { type: 'run_end', project, run_id: runId, ts: t + 20, status: 'success' },
  ];
}

export { serveChild };
