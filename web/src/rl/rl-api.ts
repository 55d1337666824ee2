// Requests of the RL pages, through the one API client's getJson and the shared filters.
import type { Environments, HackingReport, RlSteps, RlTasks } from '../../../schemas/api.js';
import { getJson, type RequestOptions } from '../api/client.js';
import { filtersToApiParams, type Filters } from '../lib/filters.js';
import { buildQuery } from '../lib/query-string.js';

/** Tasks asked for (the API's most): the table pages and sorts them in the browser. */
export const TASK_ROWS = 5000;

export const rlApi = {
  steps(filters: Filters, now: Date, by: 'training_step' | 'policy_version', opts?: RequestOptions): Promise<RlSteps> {
    return getJson<RlSteps>(`/rl/steps${buildQuery([...filtersToApiParams(filters, now, false), ['by', by]])}`, opts);
  },
  tasks(filters: Filters, now: Date, minAttempts: number, opts?: RequestOptions): Promise<RlTasks> {
    const params: [string, string][] = [...filtersToApiParams(filters, now, false), ['min_attempts', String(minAttempts)], ['limit', String(TASK_ROWS)]];
    return getJson<RlTasks>(`/rl/tasks${buildQuery(params)}`, opts);
  },
  /** Reward-hacking evidence of the ended runs per task or environment. */
  hacking(filters: Filters, now: Date, by: 'task' | 'environment', opts?: RequestOptions): Promise<HackingReport> {
    return getJson<HackingReport>(`/hacking${buildQuery([...filtersToApiParams(filters, now, false), ['by', by]])}`, opts);
  },
  environments(filters: Filters, now: Date, opts?: RequestOptions): Promise<Environments> {
    return getJson<Environments>(`/environments${buildQuery(filtersToApiParams(filters, now, false))}`, opts);
  },
};
