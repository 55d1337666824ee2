// Typed calls of the alerting endpoints (/api/v1/alerts/*), on the dashboard's one API client.
import type { AlertDelivery, AlertFiring, AlertRuleList, AlertRuleView } from '../../../schemas/api.js';
import { getJson, sendJson, type RequestOptions } from '../api/client.js';
import { buildQuery } from '../lib/query-string.js';

export const alertsApi = {
  rules(opts?: RequestOptions): Promise<AlertRuleList> {
    return getJson<AlertRuleList>('/alerts/rules', opts);
  },
  create(body: unknown): Promise<AlertRuleView> {
    return sendJson<AlertRuleView>('POST', '/alerts/rules', body);
  },
  update(id: string, body: unknown): Promise<AlertRuleView> {
    return sendJson<AlertRuleView>('PUT', `/alerts/rules/${encodeURIComponent(id)}`, body);
  },
  setEnabled(id: string, enabled: boolean): Promise<AlertRuleView> {
    return sendJson<AlertRuleView>('POST', `/alerts/rules/${encodeURIComponent(id)}/${enabled ? 'enable' : 'disable'}`, undefined);
  },
  remove(id: string): Promise<void> {
    return sendJson<void>('DELETE', `/alerts/rules/${encodeURIComponent(id)}`, undefined);
  },
  sendTest(id: string): Promise<{ deliveries: string[] }> {
    return sendJson<{ deliveries: string[] }>('POST', `/alerts/rules/${encodeURIComponent(id)}/test`, {});
  },
  firings(limit = 50, opts?: RequestOptions): Promise<{ firings: AlertFiring[] }> {
    return getJson<{ firings: AlertFiring[] }>(`/alerts/firings${buildQuery({ limit })}`, opts);
  },
  deliveries(limit = 50, opts?: RequestOptions): Promise<{ deliveries: AlertDelivery[] }> {
    return getJson<{ deliveries: AlertDelivery[] }>(`/alerts/deliveries${buildQuery({ limit })}`, opts);
  },
};
