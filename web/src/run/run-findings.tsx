// What the analyzer found in a run, each linked to its steps: how it ended (the last step and
// the failure mode's reason: the one place the reason is told; the header links here) and the
// dead loops. Steps are numbered as shown (from 1); links carry the stored index.
import { Link } from 'react-router-dom';
import { HACKING_KIND_TEXT } from '../lib/rl-view.js';
import type { LoopInfo, RunDetail } from '../../../schemas/api.js';
import { formatInt, formatTokens, formatUsd } from '../lib/format.js';
import { displayStep } from '../lib/step-label.js';

const KIND_HINT: Record<LoopInfo['kind'], string> = {
  repeat: 'the same step again and again',
  cycle: 'a sequence of steps repeating',
  stall: 'steps that make no progress',
};

export function RunFindings({ detail, endStep, stepLink }: { detail: RunDetail; endStep: number | undefined; stepLink: (step: number) => string }) {
  const loops = detail.analysis?.loops ?? [];
  const failure = detail.analysis?.failure ?? null;
  const evidence = detail.analysis?.suspicious.suspicious ? detail.analysis.suspicious.evidence_steps : [];
  const hacking = detail.analysis?.hacking?.evidence ?? [];
  if (endStep === undefined && loops.length === 0 && evidence.length === 0 && hacking.length === 0) return null;
  return (
    <section className="card run-findings" aria-label="Findings">
      <div className="finding" id="run-ending">
        <span className="finding-label">Ending</span>
        <span>
          {endStep !== undefined ? (
            <>
              {detail.run.status === 'running' ? 'Latest step ' : 'Ended at step '}
              <Link to={stepLink(endStep)} className="mono">
                #{displayStep(endStep)}
              </Link>
            </>
          ) : (
            'No steps'
          )}
          {failure && (
            <>
              {' '}
              · <span className="badge badge-mode">{failure.mode}</span>{' '}
              <span className="muted" data-testid="failure-reason">
                {failure.reason}
              </span>
            </>
          )}
        </span>
      </div>
      {loops.length > 0 && (
        <div className="finding">
          <span className="finding-label">Loops</span>
          <ul className="loop-list">
            {loops.map((l, i) => (
              <li key={i}>
                <Link to={stepLink(l.first_step)} className="loop-link" title={KIND_HINT[l.kind]}>
                  <span className="badge badge-loop">
                    loop {i + 1} · {l.kind}
                  </span>{' '}
                  steps {displayStep(l.first_step)}–{displayStep(l.last_step)}
                </Link>
                <span className="muted small">
                  {' '}
                  {l.period > 1 ? `period ${l.period}, ` : ''}
                  {formatInt(l.repetitions)} repetitions · {formatTokens(l.tokens)} tokens · {formatUsd(l.cost_usd)} wasted
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {evidence.length > 0 && (
        <div className="finding">
          <span className="finding-label">Suspicious</span>
          <span>
            {detail.analysis!.suspicious.reasons.join('; ')}{' '}
            {evidence.slice(0, 8).map((s) => (
              <Link key={s} to={stepLink(s)} className="mono evidence-link">
                #{displayStep(s)}
              </Link>
            ))}
          </span>
        </div>
      )}
      {hacking.length > 0 && (
        <div className="finding" data-testid="hacking-evidence">
          <span className="finding-label">Hacking evidence</span>
          <ul className="loop-list">
            {hacking.slice(0, 8).map((e, i) => (
              <li key={i}>
                <span className="badge badge-hacking" title={HACKING_KIND_TEXT[e.kind] ?? e.kind}>
                  {e.kind}
                </span>{' '}
                {e.step !== null ? (
                  <Link to={stepLink(e.step)} className="mono evidence-link">
                    #{displayStep(e.step)}
                  </Link>
                ) : null}{' '}
                <span className="mono">{e.text}</span>
              </li>
            ))}
            {hacking.length > 8 && <li className="muted">and {formatInt(hacking.length - 8)} more</li>}
          </ul>
        </div>
      )}
    </section>
  );
}

