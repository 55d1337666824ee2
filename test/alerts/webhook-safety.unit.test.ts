// Webhook target safety and signatures (analytics/alerts/webhook-target.ts, payload.ts).
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderBody, signatureHeaders, slackBody, verifySignature, type AlertPayload } from '../../analytics/alerts/payload.js';
import { checkWebhookUrl, InvalidAllowEntry, redactUrl, WebhookAllowList } from '../../analytics/alerts/webhook-target.js';

describe('WebhookAllowList', () => {
  const none = new WebhookAllowList([]);
  it('refuses private, loopback, link-local, metadata and reserved addresses by default', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.100.100.200', '0.0.0.0', '::1', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '224.0.0.1']) {
      expect(none.addressAllowed(a), a).toBe(false);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1']) expect(none.addressAllowed(a), a).toBe(true);
  });
  it('lets CIDRs, addresses and host names through', () => {
    const allow = new WebhookAllowList(['127.0.0.1/32', '10.0.0.0/8', 'hooks.internal', '::1']);
    expect(allow.addressAllowed('127.0.0.1')).toBe(true);
    expect(allow.addressAllowed('127.0.0.2')).toBe(false);
    expect(allow.addressAllowed('10.9.9.9')).toBe(true);
    expect(allow.addressAllowed('::1')).toBe(true);
    expect(allow.hostAllowed('HOOKS.internal')).toBe(true);
    expect(() => new WebhookAllowList(['10.0.0.0/33'])).toThrow(InvalidAllowEntry);
    expect(() => new WebhookAllowList(['http://x'])).toThrow(InvalidAllowEntry);
  });
});

describe('checkWebhookUrl', () => {
  const none = new WebhookAllowList([]);
  it('takes http(s) only, and literal addresses only when allowed', () => {
    expect(checkWebhookUrl('https://hooks.example.com/x', none).ok).toBe(true);
    expect(checkWebhookUrl('ftp://hooks.example.com/x', none)).toEqual({ ok: false, error: 'scheme ftp is not allowed (http or https only)' });
    expect(checkWebhookUrl('not a url', none).ok).toBe(false);
    expect(checkWebhookUrl('http://127.0.0.1:9000/h', none).ok).toBe(false);
    expect(checkWebhookUrl('http://localhost:9000/h', none).ok).toBe(false);
    expect(checkWebhookUrl('http://[::1]:9000/h', none).ok).toBe(false);
    expect(checkWebhookUrl('http://169.254.169.254/latest', none).ok).toBe(false);
    expect(checkWebhookUrl('http://127.0.0.1:9000/h', new WebhookAllowList(['127.0.0.1/32'])).ok).toBe(true);
  });
  it('redacts credentials and query values', () => {
    expect(redactUrl('https://user:pw@hooks.example.com/a?token=abc&x=1')).toBe('https://hooks.example.com/a?token=***&x=***');
  });
});

describe('signatures', () => {
  const payload: AlertPayload = {
    id: 'f1', type: 'alert.firing', status: 'firing', rule: { id: 'r1', name: 'Loops' }, kind: 'dead_loop', severity: 'critical',
    summary: 'run r is in a repeat loop', key: 'run:p/r', run: { project: 'p', run_id: 'r' }, cohort: null,
    values: { cost_usd: 1.25, repetitions: 4 }, url: 'http://127.0.0.1:7300/runs/r', fired_at: '2026-11-30T00:00:00.000Z',
  };
  it('signs `${ts}.${body}` with HMAC-SHA256 and verifies it', () => {
    const body = renderBody(payload, 'json');
    const h = signatureHeaders('top-secret', 1_700_000_000, body);
    const expected = createHmac('sha256', 'top-secret').update(`1700000000.${body}`).digest('hex');
    expect(h).toEqual({ 'X-Trajscope-Timestamp': '1700000000', 'X-Trajscope-Signature': `sha256=${expected}` });
    expect(verifySignature('top-secret', body, h['X-Trajscope-Timestamp'], h['X-Trajscope-Signature'], 1_700_000_100)).toBe(true);
    expect(verifySignature('other', body, h['X-Trajscope-Timestamp'], h['X-Trajscope-Signature'], 1_700_000_100)).toBe(false);
    expect(verifySignature('top-secret', `${body} `, h['X-Trajscope-Timestamp'], h['X-Trajscope-Signature'], 1_700_000_100)).toBe(false);
    expect(verifySignature('top-secret', body, h['X-Trajscope-Timestamp'], h['X-Trajscope-Signature'], 1_700_001_000)).toBe(false);
    expect(signatureHeaders('', 1, body)).toEqual({});
  });
  it('renders a Slack body with the summary and link', () => {
    const s = slackBody(payload);
    expect(s.text).toBe(':rotating_light: CRITICAL · Loops: run r is in a repeat loop');
    expect(JSON.stringify(s.blocks)).toContain('<http://127.0.0.1:7300/runs/r|Open in Trajscope>');
    expect(JSON.parse(renderBody(payload, 'slack')).text).toBe(s.text);
  });
});
