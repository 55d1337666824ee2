// The Errors page's pure parts: a template cut into text and placeholders, the share of runs that
// failed, and the trend's bar heights.
import type { ErrorSignature } from '../../../schemas/api.js';

export interface TemplatePiece {
  text: string;
  /** A masked part: <n>, <path>, <time>, <id>, <file> or <*>. */
  placeholder: boolean;
}

const PLACEHOLDER = /<(?:n|path|time|id|file|\*)>/g;

/** A template in pieces, its placeholders apart (drawn as chips). */
export function templatePieces(template: string): TemplatePiece[] {
  const out: TemplatePiece[] = [];
  let at = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (m.index! > at) out.push({ text: template.slice(at, m.index), placeholder: false });
    out.push({ text: m[0], placeholder: true });
    at = m.index! + m[0].length;
  }
  if (at < template.length) out.push({ text: template.slice(at), placeholder: false });
  return out;
}

/** The share of a signature's runs that failed, 0–1 (null without runs). */
export function failedShare(s: Pick<ErrorSignature, 'runs' | 'failed_runs'>): number | null {
  return s.runs > 0 ? s.failed_runs / s.runs : null;
}

/** Bar heights 0–1 of a trend, relative to its highest bar (all 0 when empty). */
export function trendHeights(trend: readonly number[]): number[] {
  const max = Math.max(0, ...trend);
  return trend.map((v) => (max > 0 ? v / max : 0));
}
