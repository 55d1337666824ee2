// The Alerts page's rule editor state (web/src/alerts/rule-draft.ts): form text to rule JSON and back.
import { describe, expect, it } from 'vitest';
import { describeRule, draftFromRule, draftToBody, emptyDraft } from '../../web/src/alerts/rule-draft.js';

describe('rule drafts', () => {
  it('turns the form into the rule JSON, numbers parsed and lists split', () => {
    const d = { ...emptyDraft('metric_threshold'), name: ' Low completion ', project: 'p1, p2', tags: 'team:ml', cooldown_s: '300' };
    d.params = { metric: 'completion_rate', op: '<', value: '0.6', window_s: '3600', min_runs: '', group_by: 'model' };
    d.webhooks = [{ url: 'https://hooks.example.com/x', format: 'json', secret: 'abcdefgh', hasSecret: false }];
    expect(draftToBody(d)).toEqual({
      ok: true,
      body: {
        name: 'Low completion', kind: 'metric_threshold', severity: 'warning', cooldown_s: 300, enabled: true,
        filters: { project: ['p1', 'p2'], model: [], agent: [], category: [], tag: { team: 'ml' } },
        params: { metric: 'completion_rate', op: '<', value: 0.6, window_s: 3600, group_by: 'model' },
        webhooks: [{ url: 'https://hooks.example.com/x', format: 'json', secret: 'abcdefgh' }],
      },
    });
  });

  it('lists what to fix', () => {
    const d = { ...emptyDraft('metric_threshold'), cooldown_s: 'x', tags: 'oops' };
    d.params = { metric: 'completion_rate', op: '<', value: '' };
    const r = draftToBody(d);
    expect(r.ok ? [] : r.errors).toEqual([
      'Name is required.', 'Cooldown must be a whole number of seconds.', 'Value is required.', 'Tag "oops" must be key:value.',
      'Webhook 1: the URL is required.', 'Webhook 1: a signing secret is required for JSON webhooks.',
    ]);
  });

  it('edits a stored rule without its secret, which the update then keeps', () => {
    const rule = {
      id: 'r1', name: 'Loops', kind: 'dead_loop' as const, severity: 'critical' as const, cooldown_s: 3600, enabled: true, params: {},
      filters: { project: ['p'], model: [], agent: [], category: [], tag: {} }, created_at: '', updated_at: '',
      webhooks: [{ id: 'w1', url: 'https://h.example.com', format: 'json' as const, has_secret: true }],
    };
    const d = draftFromRule(rule);
    expect(d.webhooks).toEqual([{ id: 'w1', url: 'https://h.example.com', format: 'json', secret: '', hasSecret: true }]);
    const body = draftToBody(d);
    expect(body.ok && body.body.webhooks).toEqual([{ id: 'w1', url: 'https://h.example.com', format: 'json' }]);
    expect(describeRule(rule)).toBe('project p');
  });
});
