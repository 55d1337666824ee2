// One key for a run's whole action sequence, so runs that did exactly the same thing can be
// grouped (flaky-verifier detection). Pure.
import { createHash } from 'node:crypto';

/**
 * Key of a sequence of action signatures (analytics/signatures.ts, via signSteps), in step order:
 * 16 hex characters of a SHA-1 over them; '' for a run without actions. Steps that carry nothing
 * to sign (signSteps gives them an `unsigned:` signature) are left out.
 */
export function actionSequenceKey(actions: readonly string[]): string {
  const signed = actions.filter((a) => !a.startsWith('unsigned:'));
  if (signed.length === 0) return '';
  const h = createHash('sha1');
  for (const a of signed) h.update(a).update('\u0000');
  return h.digest('hex').slice(0, 16);
}
