// The Alerts page's tables: rules (with enable, edit, send test, delete), firing history and
// webhook deliveries with every attempt.
import { Fragment, useState } from 'react';
import type { AlertDelivery, AlertFiring, AlertRuleView } from '../../../schemas/api.js';
import { formatRelative, formatTimestamp } from '../lib/format.js';
import { describeRule, KIND_LABELS, seconds } from './rule-draft.js';

export function SeverityBadge({ severity }: { severity: string }) {
  return <span className={`badge alert-sev alert-sev-${severity}`}>{severity}</span>;
}

export function StateBadge({ state }: { state: string }) {
  return <span className={`badge alert-state alert-state-${state}`}>{state}</span>;
}

export interface RuleActions {
  onEdit: (r: AlertRuleView) => void;
  onToggle: (r: AlertRuleView) => void;
  onTest: (r: AlertRuleView) => void;
  onDelete: (r: AlertRuleView) => void;
}

export function RulesTable({ rules, actions, busy }: { rules: AlertRuleView[]; actions: RuleActions; busy: string | null }) {
  return (
    <table className="data-table alert-rules" data-testid="alert-rules">
      <thead>
        <tr>
          <th>Rule</th>
          <th>Kind</th>
          <th>Watches</th>
          <th>Severity</th>
          <th className="num">Cooldown</th>
          <th>Webhooks</th>
          <th>Enabled</th>
          <th aria-label="Actions" />
        </tr>
      </thead>
      <tbody>
        {rules.map((r) => (
          <tr key={r.id} data-rule-id={r.id} className={r.enabled ? undefined : 'alert-disabled'}>
            <td className="alert-rule-name">{r.name}</td>
            <td className="nowrap">{KIND_LABELS[r.kind]}</td>
            <td className="alert-watch">{describeRule(r)}</td>
            <td><SeverityBadge severity={r.severity} /></td>
            <td className="num">{seconds(r.cooldown_s)}</td>
            <td className="alert-hooks">
              {r.webhooks.map((w) => (
                <div key={w.id} className="mono small truncate" title={w.url}>
                  {w.format === 'slack' ? 'Slack · ' : ''}
                  {hostOf(w.url)}
                  {w.has_secret ? ' · signed' : ''}
                </div>
              ))}
            </td>
            <td>
              <label className="switch">
                <input type="checkbox" checked={r.enabled} disabled={busy === r.id} onChange={() => actions.onToggle(r)} aria-label={`${r.enabled ? 'Disable' : 'Enable'} ${r.name}`} />
                <span aria-hidden="true" />
              </label>
            </td>
            <td className="nowrap alert-actions">
              <button type="button" className="btn btn-small" onClick={() => actions.onTest(r)} disabled={busy === r.id}>Send test</button>
              <button type="button" className="btn btn-small btn-quiet" onClick={() => actions.onEdit(r)}>Edit</button>
              <button type="button" className="btn btn-small btn-quiet btn-danger" onClick={() => actions.onDelete(r)} disabled={busy === r.id}>Delete</button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function FiringsTable({ firings, now }: { firings: AlertFiring[]; now: Date }) {
  return (
    <table className="data-table" data-testid="alert-firings">
      <thead>
        <tr>
          <th>When</th>
          <th>Rule</th>
          <th>Status</th>
          <th>Severity</th>
          <th>Summary</th>
        </tr>
      </thead>
      <tbody>
        {firings.map((f) => {
          const url = (f.payload as { url?: string } | null)?.url;
          const local = url && f.status !== 'test' ? localPath(url) : null;
          return (
            <tr key={f.firing_id}>
              <td className="nowrap" title={formatTimestamp(f.fired_at)}>{formatRelative(f.fired_at, now)}</td>
              <td className="nowrap">{f.rule_name}</td>
              <td><StateBadge state={f.status} /></td>
              <td><SeverityBadge severity={f.severity} /></td>
              <td className="alert-summary">
                {f.summary}
                {local && (
                  <>
                    {' '}
                    <a href={local}>{f.run_id ? 'run' : 'runs'} →</a>
                  </>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function DeliveriesTable({ deliveries, rules, now }: { deliveries: AlertDelivery[]; rules: Map<string, string>; now: Date }) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <table className="data-table" data-testid="alert-deliveries">
      <thead>
        <tr>
          <th>Created</th>
          <th>Rule</th>
          <th>Target</th>
          <th>State</th>
          <th className="num">Attempts</th>
          <th>Last error</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((d) => (
          <Fragment key={d.delivery_id}>
            <tr className="clickable" onClick={() => setOpen(open === d.delivery_id ? null : d.delivery_id)} aria-expanded={open === d.delivery_id}>
              <td className="nowrap" title={formatTimestamp(d.created_at)}>{formatRelative(d.created_at, now)}</td>
              <td className="nowrap">{rules.get(d.rule_id) ?? <span className="muted">deleted rule</span>}</td>
              <td className="mono small truncate alert-target" title={d.url}>{d.format === 'slack' ? 'Slack · ' : ''}{d.url}</td>
              <td><StateBadge state={d.state} />{d.state === 'pending' && d.next_attempt_at && <span className="muted small"> next {formatRelative(d.next_attempt_at, now)}</span>}</td>
              <td className="num">{d.attempts}</td>
              <td className="error-text small">{d.last_error}</td>
            </tr>
            {open === d.delivery_id && (
              <tr className="alert-attempts">
                <td colSpan={6}>
                  {d.attempt_log.length === 0 ? (
                    <span className="muted">No attempt yet.</span>
                  ) : (
                    <table className="mini-table">
                      <thead>
                        <tr><th>#</th><th>At</th><th>Outcome</th><th className="num">HTTP</th><th className="num">ms</th><th>Error</th></tr>
                      </thead>
                      <tbody>
                        {d.attempt_log.map((a) => (
                          <tr key={a.attempt}>
                            <td>{a.attempt}</td>
                            <td className="nowrap">{formatTimestamp(a.ts)}</td>
                            <td><StateBadge state={a.outcome} /></td>
                            <td className="num">{a.status_code ?? '—'}</td>
                            <td className="num">{Math.round(a.duration_ms)}</td>
                            <td className="error-text">{a.error}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  )}
                  <div className="muted small">Delivery {d.delivery_id} · firing {d.firing_id}</div>
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname.length > 1 ? u.pathname.slice(0, 24) + (u.pathname.length > 24 ? '…' : '') : ''}`;
  } catch {
    return url;
  }
}

/** A dashboard link of a payload as a path of this dashboard (links carry the configured public URL). */
function localPath(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return null;
  }
}
