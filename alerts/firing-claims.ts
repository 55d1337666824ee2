// The per-key state of the rules (firing, cooldown; stored in ClickHouse, kept in memory): a
// claim decides (dedup, cooldown, resolution) and records the new state at once, before any
// await, so two signals of one run arriving together fire once.
import { decide, type AlertState, type Observation } from '../analytics/alerts/firing-decisions.js';
import { RESOLVING_KINDS, type AlertRule } from '../schemas/alert-rules.js';
import { stateKey, type AlertsStore } from '../storage/queries/alerts-store.js';

/** Keys of per-key state kept in memory at most (run keys of old firings are dropped first). */
const MAX_STATES = 200_000;

export interface AlertStats {
  fired: number;
  resolved: number;
  suppressed: number;
}

export class FiringClaims {
  private states = new Map<string, AlertState>();

  constructor(
    private readonly store: AlertsStore,
    private readonly clock: () => number,
    private readonly stats: AlertStats,
  ) {}

  async load(): Promise<void> {
    this.states = await this.store.loadStates(MAX_STATES);
  }

  /** What to send for this observation of the rule's key, if anything. */
  claim(rule: AlertRule, key: string, observation: Observation): 'fire' | 'resolve' | null {
    const k = stateKey(rule.id, key);
    const d = decide(this.states.get(k), observation, this.clock(), rule.cooldown_s * 1000, RESOLVING_KINDS.includes(rule.kind));
    if (d.action === 'none') {
      if (d.reason === 'cooldown' || d.reason === 'already firing') this.stats.suppressed++;
      return null;
    }
    this.states.delete(k);
    this.states.set(k, d.next);
    while (this.states.size > MAX_STATES) this.states.delete(this.states.keys().next().value as string);
    return d.action;
  }

  /**
   * A new leader's view of the rules the leader evaluates: their states become those of the
   * progress log (what earlier leaders recorded), whatever this process held in memory.
   */
  replaceStates(ofRule: (ruleId: string) => boolean, states: readonly { rule_id: string; key: string; state: AlertState }[]): void {
    for (const k of [...this.states.keys()]) if (ofRule(k.slice(0, k.indexOf('\u0000')))) this.states.delete(k);
    for (const s of states) this.states.set(stateKey(s.rule_id, s.key), s.state);
  }

  state(ruleId: string, key: string): AlertState | undefined {
    return this.states.get(stateKey(ruleId, key));
  }

  /** The keys of the rule that are firing now. */
  firingKeys(ruleId: string): string[] {
    const prefix = stateKey(ruleId, '');
    const out: string[] = [];
    for (const [k, s] of this.states) if (s.status === 'firing' && k.startsWith(prefix)) out.push(k.slice(prefix.length));
    return out;
  }
}
