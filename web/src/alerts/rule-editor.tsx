// The form that creates or edits an alert rule: kind, filters, per-kind parameters, cooldown,
// severity and webhooks (secrets are write-only: an existing one is kept when left empty).
import { useState } from 'react';
import { ApiError } from '../api/client.js';
import { alertsApi } from './alerts-api.js';
import { draftToBody, emptyDraft, KIND_LABELS, PARAM_FIELDS, type Kind, type RuleDraft, type WebhookDraft } from './rule-draft.js';

export function RuleEditor({ initial, onSaved, onCancel }: { initial: RuleDraft; onSaved: () => void; onCancel: () => void }) {
  const [d, setD] = useState<RuleDraft>(initial);
  const [errors, setErrors] = useState<string[]>([]);
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof RuleDraft>(k: K, v: RuleDraft[K]) => setD((x) => ({ ...x, [k]: v }));
  const setParam = (name: string, v: string) => setD((x) => ({ ...x, params: { ...x.params, [name]: v } }));
  const setHook = (i: number, patch: Partial<WebhookDraft>) => setD((x) => ({ ...x, webhooks: x.webhooks.map((w, j) => (j === i ? { ...w, ...patch } : w)) }));

  const save = async () => {
    const built = draftToBody(d);
    if (!built.ok) return setErrors(built.errors);
    setSaving(true);
    try {
      if (d.id) await alertsApi.update(d.id, built.body);
      else await alertsApi.create(built.body);
      onSaved();
    } catch (err) {
      setErrors([err instanceof ApiError ? err.message : String(err)]);
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="card alert-editor" aria-label={d.id ? 'Edit rule' : 'New rule'}>
      <div className="card-head">
        <h2>{d.id ? `Edit “${initial.name}”` : 'New rule'}</h2>
      </div>
      <div className="alert-form">
        <label className="field field-wide">
          <span>Name</span>
          <input value={d.name} onChange={(e) => set('name', e.target.value)} placeholder="e.g. Dead loops in production" />
        </label>
        <label className="field">
          <span>Kind</span>
          <select
            value={d.kind}
            disabled={!!d.id}
            onChange={(e) => setD((x) => ({ ...x, kind: e.target.value as Kind, params: emptyDraft(e.target.value as Kind).params }))}
          >
            {(Object.keys(KIND_LABELS) as Kind[]).map((k) => (
              <option key={k} value={k}>{KIND_LABELS[k]}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Severity</span>
          <select value={d.severity} onChange={(e) => set('severity', e.target.value as RuleDraft['severity'])}>
            <option value="info">info</option>
            <option value="warning">warning</option>
            <option value="critical">critical</option>
          </select>
        </label>
        <label className="field">
          <span>Cooldown (s)</span>
          <input value={d.cooldown_s} inputMode="numeric" onChange={(e) => set('cooldown_s', e.target.value)} />
        </label>
        <label className="field field-check">
          <input type="checkbox" checked={d.enabled} onChange={(e) => set('enabled', e.target.checked)} /> Enabled
        </label>

        <fieldset className="field-group">
          <legend>Runs it watches (comma lists; empty = all)</legend>
          {(['project', 'model', 'agent', 'category'] as const).map((k) => (
            <label className="field" key={k}>
              <span>{k === 'category' ? 'Task category' : k[0].toUpperCase() + k.slice(1)}</span>
              <input value={d[k]} onChange={(e) => set(k, e.target.value)} />
            </label>
          ))}
          <label className="field">
            <span>Tags</span>
            <input value={d.tags} placeholder="key:value, …" onChange={(e) => set('tags', e.target.value)} />
          </label>
        </fieldset>

        <fieldset className="field-group">
          <legend>When it fires</legend>
          {PARAM_FIELDS[d.kind].length === 0 && <span className="muted small">No parameters.</span>}
          {PARAM_FIELDS[d.kind].map((f) => (
            <label className="field" key={f.name}>
              <span>{f.label}</span>
              {f.type === 'select' ? (
                <select value={d.params[f.name] ?? ''} onChange={(e) => setParam(f.name, e.target.value)}>
                  {!f.required && <option value="">—</option>}
                  {f.options!.map((o) => (
                    <option key={o} value={o}>{o}</option>
                  ))}
                </select>
              ) : (
                <input value={d.params[f.name] ?? ''} placeholder={f.placeholder} inputMode={f.type === 'number' ? 'decimal' : undefined} onChange={(e) => setParam(f.name, e.target.value)} />
              )}
            </label>
          ))}
        </fieldset>

        <fieldset className="field-group field-group-wide">
          <legend>Webhooks</legend>
          {d.webhooks.map((w, i) => (
            <div className="webhook-row" key={w.id ?? `new-${i}`}>
              <label className="field field-url">
                <span>URL</span>
                <input value={w.url} placeholder="https://hooks.example.com/trajscope" onChange={(e) => setHook(i, { url: e.target.value })} />
              </label>
              <label className="field">
                <span>Format</span>
                <select value={w.format} onChange={(e) => setHook(i, { format: e.target.value as WebhookDraft['format'] })}>
                  <option value="json">JSON (signed)</option>
                  <option value="slack">Slack</option>
                </select>
              </label>
              <label className="field">
                <span>Signing secret</span>
                <input
                  type="password"
                  autoComplete="new-password"
                  value={w.secret}
                  placeholder={w.hasSecret ? 'set (leave empty to keep)' : 'at least 8 characters'}
                  onChange={(e) => setHook(i, { secret: e.target.value })}
                />
              </label>
              <button type="button" className="btn btn-quiet" aria-label={`Remove webhook ${i + 1}`} onClick={() => set('webhooks', d.webhooks.filter((_, j) => j !== i))}>
                Remove
              </button>
            </div>
          ))}
          <button type="button" className="btn btn-quiet" onClick={() => set('webhooks', [...d.webhooks, { url: '', format: 'json', secret: '', hasSecret: false }])}>
            + Add webhook
          </button>
        </fieldset>
      </div>
      {errors.length > 0 && (
        <ul className="alert-form-errors" role="alert">
          {errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
      <div className="alert-form-actions">
        <button type="button" className="btn btn-primary" onClick={save} disabled={saving}>
          {saving ? 'Saving…' : d.id ? 'Save rule' : 'Create rule'}
        </button>
        <button type="button" className="btn btn-quiet" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}
