// Shapes GET /api/v1/loops and /api/v1/loops/groups for the Loops page. Pure.
import type { LoopInfo, LoopsReport } from '../../../schemas/api.js';

export const LOOP_KINDS = ['repeat', 'cycle', 'stall'] as const;
export type LoopKind = (typeof LOOP_KINDS)[number];

export const LOOP_KIND_TEXT: Record<LoopKind, string> = {
  repeat: 'the same action again and again',
  cycle: 'a sequence of 2–5 actions going round',
  stall: 'steps that make no progress',
};

export function isLoopKind(s: string | null | undefined): s is LoopKind {
  return !!s && (LOOP_KINDS as readonly string[]).includes(s);
}

export interface KindRow {
  kind: string;
  loops: number;
  tokens: number;
  cost_usd: number;
  /** Share of all loops' cost (null when they cost nothing). */
  cost_share: number | null;
}

/** One row per loop kind (known kinds first, in a fixed order, then any other). */
export function kindRows(totals: LoopsReport['totals']): KindRow[] {
  const kinds = [...LOOP_KINDS.filter((k) => totals.by_kind[k]), ...Object.keys(totals.by_kind).filter((k) => !isLoopKind(k)).sort()];
  const cost = Object.values(totals.by_kind).reduce((a, k) => a + k.cost_usd, 0);
  return kinds.map((kind) => {
    const k = totals.by_kind[kind];
    return { kind, loops: k.loops, tokens: k.tokens, cost_usd: k.cost_usd, cost_share: cost > 0 ? k.cost_usd / cost : null };
  });
}

/** "3 steps × 4" for a cycle, "×7" for a repeat or stall: the loop's shape in a few characters. */
export function loopShape(l: Pick<LoopInfo, 'kind' | 'period' | 'repetitions'>): string {
  return l.period > 1 ? `${l.period} steps × ${l.repetitions}` : `× ${l.repetitions}`;
}

/** "steps 12–19" */
export function loopSpan(l: Pick<LoopInfo, 'first_step' | 'last_step'>): string {
  return l.first_step === l.last_step ? `step ${l.first_step}` : `steps ${l.first_step}–${l.last_step}`;
}

/** Label of a loops-by-tool row ('' means no tool was called inside those loops). */
export function toolLabel(key: string): string {
  return key === '' ? '(no tool call)' : key;
}
