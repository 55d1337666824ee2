// Every operation of the HTTP API, for the OpenAPI document (server/openapi/openapi-document.ts):
// method, path, tag, what it does, and the zod schemas its route validates with (query, path
// parameters, body), so that the document says what the routes check. Answers that have a zod
// schema (server/openapi/response-schemas.ts) are described by it; the others in words (their
// shapes are the interfaces of schemas/api.ts). test/integration/openapi.integration.test.ts fails
// when a route is mounted that is not described here.
import { z } from 'zod';
import { ruleInputSchema } from '../../schemas/alert-rules.js';
import { eventSchema } from '../../schemas/events.js';
import { deliveriesQuery, firingsQuery, idParam as ruleIdParam, testBody } from '../alerts/alerts-router.js';
import { createBody } from '../auth/keys-router.js';
import { groupsSchema } from '../loops/loop-groups-router.js';
import { breakdownSchema, failuresSchema, loopsSchema, spikesSchema } from '../metrics/analytics-router.js';
import { changesSchema } from '../changes/changes-router.js';
import { errorsSchema } from '../errors/errors-router.js';
import { cohortGraphSchema, runGraphSchema } from '../graph/graph-router.js';
import { hackingSchema } from '../hacking/hacking-router.js';
import { findSchema, searchSchema } from '../search/search-router.js';
import { timeseriesSchema } from '../metrics/metrics-router.js';
import { stepsSchema, tasksSchema, trainerSchema } from '../rl/rl-router.js';
import { runFiltersSchema } from '../../storage/queries/run-filters.js';
import { detailSchema, listSchema, stepWindowSchema } from '../runs/runs-router.js';
import { idParam as savedIdParam, listQuery as savedListQuery, saveBody } from '../sql/saved-queries-router.js';
import { bodySchema as sqlBody, paramValue } from '../sql/sql-router.js';
import * as answers from './response-schemas.js';
import { withOpenApi } from './zod-metadata.js';

export type Method = 'get' | 'post' | 'put' | 'delete';

export const TAGS = [
  { name: 'ingest', description: 'Sending events and OTLP spans' },
  { name: 'runs', description: 'Runs, their steps, tool calls and analysis' },
  { name: 'analytics', description: 'Overview, metrics, failures, loops, cost spikes, comparisons' },
  { name: 'rl', description: 'RL rollouts: training steps, tasks, environments, the trainer' },
  { name: 'sql', description: 'The read-only SQL console and saved queries' },
  { name: 'keys', description: 'API keys and who the caller is' },
  { name: 'alerts', description: 'Alert rules, firings and webhook deliveries' },
  { name: 'status', description: 'Health, readiness, ingest and analysis status' },
  { name: 'meta', description: 'This description of the API' },
  { name: 'dashboard', description: 'The dashboard\'s files (not JSON)' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

export interface Answer {
  status: number;
  description: string;
  /** A zod schema of the JSON answer; without one, the answer is described in words only. */
  schema?: z.ZodType;
  /** Defaults to application/json; null for an answer without a body. */
  contentType?: string | null;
}

export interface Operation {
  method: Method;
  /** OpenAPI form: `{param}` where the route has `:param`. */
  path: string;
  tag: Tag;
  summary: string;
  description?: string;
  query?: z.ZodObject;
  params?: z.ZodObject;
  body?: { schema: z.ZodType; contentTypes?: Record<string, z.ZodType>; description?: string };
  answers: Answer[];
}

const runId = z.object({ run_id: z.string().describe('the run id') });
const keyId = z.object({ id: z.string().describe('the key id') });
const json = (status: number, description: string, schema?: z.ZodType): Answer => ({ status, description, schema });
const noBody = (status: number, description: string): Answer => ({ status, description, contentType: null });
const FILTERS = 'Filtered by the shared run filters (project, model, agent, agent_version, task_category, environment, status, failure_mode, tag=k:v, from, to); see docs/http-api.md.';

/** A query parameter of the form a[model]=x (a filter set of one cohort). */
const cohort = (side: 'a' | 'b') =>
  withOpenApi(runFiltersSchema.partial().describe(`the filters of cohort ${side}, as ${side}[agent_version]=1.0 or a time window ${side}[from]/${side}[to] (top-level filters apply to both cohorts; a cohort's own value of a key wins)`), {
    param: { style: 'deepObject', explode: true },
  });

/** Called when the document is built. */
export function apiOperations(): Operation[] {
  // Named schemas become components; the recursive SQL parameter value needs its name to end its recursion.
  withOpenApi(paramValue, 'SqlParamValue');
  const event = withOpenApi(eventSchema, 'Event');
  const ruleInput = withOpenApi(ruleInputSchema, 'AlertRuleInput');
  return [
    // ── ingest
    {
      method: 'post', path: '/v1/events', tag: 'ingest', summary: 'Send events',
      description: 'One event, a JSON array of events, or NDJSON (application/x-ndjson); gzip, deflate or br content encoding. 200 all accepted, 207 some rejected, 400 none (see docs/sending-events.md).',
      query: z.object({ ack: z.enum(['stored', 'buffered']).optional().describe('answer once the rows are stored (default as configured) or once they are buffered') }),
      body: {
        schema: z.union([event, z.array(event)]),
        contentTypes: { 'application/x-ndjson': z.string().describe('one event (as in application/json) per line') },
      },
      answers: [
        json(200, 'every event accepted', answers.ingestAnswer),
        json(207, 'some events rejected, each with its index and reason', answers.ingestAnswer),
        json(400, 'no event accepted (each with its index and reason), or a body that is not JSON or NDJSON (the shared error shape)', z.union([answers.ingestAnswer, answers.errorBody])),
      ],
    },
    {
      method: 'post', path: '/v1/traces', tag: 'ingest', summary: 'Export OTLP spans',
      description: 'OTLP/HTTP ExportTraceServiceRequest, protobuf (application/x-protobuf) or JSON (application/json), with gen_ai.* attributes (docs/otlp.md). The answer is in the request\'s encoding; errors are google.rpc.Status bodies, not the shared error shape.',
      body: {
        schema: z.looseObject({ resourceSpans: z.array(z.unknown()).optional() }).describe('ExportTraceServiceRequest (OTLP/JSON)'),
        contentTypes: { 'application/x-protobuf': z.string().describe('ExportTraceServiceRequest (protobuf)') },
      },
      answers: [
        json(200, 'ExportTraceServiceResponse, with partialSuccess when spans were rejected', answers.otlpExportAnswer),
        json(400, 'google.rpc.Status: bad data, not to be retried', answers.otlpStatus),
        json(401, 'google.rpc.Status: no valid key (keys configured)', answers.otlpStatus),
        json(503, 'google.rpc.Status: retry after Retry-After; re-sending is safe', answers.otlpStatus),
      ],
    },
    // ── runs
    { method: 'get', path: '/api/v1/runs', tag: 'runs', summary: 'List runs', description: `${FILTERS} Sorted and paged with a cursor.`, query: listSchema, answers: [json(200, '{"runs": [...], "next_cursor", "total"} (RunsPage in schemas/api.ts)')] },
    { method: 'get', path: '/api/v1/runs/{run_id}', tag: 'runs', summary: 'A run with its steps, tool calls, scores, analysis and child runs', params: runId, query: detailSchema, answers: [json(200, 'RunDetail (schemas/api.ts): run, steps, tool_calls, scores, analysis, steps_truncated, and its child runs (subagents) with the totals of the run and its children', answers.runDetailChildren)] },
    { method: 'get', path: '/api/v1/runs/{run_id}/steps/index', tag: 'runs', summary: 'Every step of a run in outline, as parallel arrays', params: runId, query: stepWindowSchema.pick({ project: true }), answers: [json(200, 'StepIndex (schemas/api.ts)')] },
    { method: 'get', path: '/api/v1/runs/{run_id}/steps', tag: 'runs', summary: 'A window of full steps with their tool calls', params: runId, query: stepWindowSchema, answers: [json(200, 'StepWindow (schemas/api.ts)')] },
    // ── analytics
    { method: 'get', path: '/api/v1/overview', tag: 'analytics', summary: 'Run metrics of the filtered runs', description: FILTERS, query: runFiltersSchema, answers: [json(200, 'Overview (schemas/api.ts)')] },
    { method: 'get', path: '/api/v1/metrics/timeseries', tag: 'analytics', summary: 'Run metrics per time bucket', description: FILTERS, query: timeseriesSchema, answers: [json(200, 'Timeseries (schemas/api.ts)')] },
    { method: 'get', path: '/api/v1/filters', tag: 'analytics', summary: 'The values of each filter dimension', query: runFiltersSchema.pick({ project: true }), answers: [json(200, 'FilterOptions (schemas/api.ts)')] },
    { method: 'get', path: '/api/v1/metrics/breakdown', tag: 'analytics', summary: 'Run metrics per value of a dimension, or per tool', description: FILTERS, query: breakdownSchema, answers: [json(200, 'Breakdown (schemas/api.ts)')] },
    {
      method: 'get', path: '/api/v1/failures', tag: 'analytics', summary: 'Failure modes of the runs, and against a baseline window',
      description: `${FILTERS} \`comparison\` sets each mode's failure rate (runs with the mode / ended runs) in the window from/to against the baseline window base_from/base_to (default: the previous window of the same length), with a two-proportion z test (docs/analyses.md).`,
      query: failuresSchema,
      answers: [json(200, 'FailuresReport (schemas/api.ts)', answers.failuresReport)],
    },
    { method: 'get', path: '/api/v1/loops', tag: 'analytics', summary: 'Dead loops, most costly first', description: FILTERS, query: loopsSchema, answers: [json(200, 'LoopsReport (schemas/api.ts)')] },
    { method: 'get', path: '/api/v1/loops/groups', tag: 'analytics', summary: 'Dead loops per value of a dimension, or per tool', description: FILTERS, query: groupsSchema, answers: [json(200, 'LoopGroups (schemas/api.ts)')] },
    { method: 'get', path: '/api/v1/costs/spikes', tag: 'analytics', summary: 'Cost spikes: runs, steps and hours', description: FILTERS, query: spikesSchema, answers: [json(200, 'CostSpikesReport (schemas/api.ts)')] },
    {
      method: 'get', path: '/api/v1/compare', tag: 'analytics', summary: 'Two cohorts side by side',
      description: 'a[...] and b[...] are the two cohorts\' filter sets, time windows (a[from]/a[to]) included; the shared run filters at the top level apply to both, and a cohort\'s own value of a key (from and to each on its own) wins over the shared one. The answer states each cohort\'s window (windows.a, windows.b); a cohort whose from is not before its to is a 400.',
      query: runFiltersSchema.extend({ a: cohort('a'), b: cohort('b') }),
      answers: [json(200, 'CompareReport (schemas/api.ts)')],
    },
    {
      method: 'get', path: '/api/v1/changes', tag: 'analytics', summary: 'What changed a metric between two windows or cohorts, and why',
      description: `${FILTERS} Cohort B is the window from/to (default: the last 7 days), cohort A the window base_from/base_to (default: the previous window of the same length); or give two filter cohorts a[...] and b[...] as for /api/v1/compare. The change of the metric is split over every dimension's groups into mix and rate parts that add up to it (docs/analyses.md).`,
      query: changesSchema.extend({
        a: withOpenApi(runFiltersSchema.partial().optional().describe('the filters of cohort A (before), as a[agent_version]=1.0, instead of the baseline window'), { param: { style: 'deepObject', explode: true } }),
        b: withOpenApi(runFiltersSchema.partial().optional().describe('the filters of cohort B (after), as b[agent_version]=2.0'), { param: { style: 'deepObject', explode: true } }),
      }),
      answers: [json(200, 'ChangeReport (schemas/api.ts)')],
    },
    {
      method: 'get', path: '/api/v1/search', tag: 'runs', summary: 'Full-text search over the steps and tool calls of every run',
      description: `${FILTERS} Here from/to bound the steps' and tool calls' ts, and q is the text searched for. A regex the engine cannot compile is a 400 (bad_regex) with its reason.`,
      query: searchSchema,
      answers: [json(200, 'SearchAnswer (schemas/api.ts): total_runs, total_hits, a page of runs with their first 5 matches, next_offset')],
    },
    {
      method: 'get', path: '/api/v1/runs/{run_id}/find', tag: 'runs', summary: 'Find text in one run: its matching steps and tool calls in step order',
      description: 'q, mode, field and tool as in /api/v1/search. A regex the engine cannot compile is a 400 (bad_regex).',
      params: runId,
      query: findSchema,
      answers: [json(200, 'RunFindAnswer (schemas/api.ts): total, words, the first `limit` matches with snippets and links')],
    },
    {
      method: 'get', path: '/api/v1/errors', tag: 'analytics', summary: 'Error signatures: error messages grouped by template, with counts, trend, first and last seen',
      description: `${FILTERS} Here from/to bound the errors' time; the other filters the runs.`,
      query: errorsSchema,
      answers: [json(200, 'ErrorsReport (schemas/api.ts): totals, and per signature its template, occurrences, runs, failed runs, first/last seen, new in the window, tools, models, trend and examples')],
    },
    {
      method: 'get', path: '/api/v1/runs/{run_id}/graph', tag: 'runs', summary: 'What a run did as a graph: tools (and files) as nodes, transitions as edges with counts, cost and steps',
      description: 'See docs/graphs.md. Nodes beyond max_tools / max_files are merged into "other" nodes.',
      params: runId,
      query: runGraphSchema,
      answers: [json(200, 'RunGraph (schemas/tool-graph.ts): outcome, nodes and edges with counts, errors, cost, tokens, time and their steps')],
    },
    {
      method: 'get', path: '/api/v1/graph', tag: 'analytics', summary: 'Tool paths of the runs in view: transitions between tools with P(next | current), split by outcome',
      description: `${FILTERS} The most recent max_runs runs matched are read (see docs/graphs.md).`,
      query: cohortGraphSchema,
      answers: [json(200, 'CohortGraph (schemas/tool-graph.ts): runs read, nodes and edges with counts, probabilities and failure share per outcome, example runs')],
    },
    {
      method: 'get', path: '/api/v1/hacking', tag: 'rl', summary: 'Reward-hacking evidence per task or environment: runs with each kind, success rate with and without',
      description: FILTERS,
      query: hackingSchema,
      answers: [json(200, 'HackingReport (schemas/api.ts)')],
    },
    { method: 'get', path: '/api/v1/projects', tag: 'analytics', summary: 'The projects that hold runs', answers: [json(200, 'the projects with their run count and last activity', answers.projectList)] },
    // ── rl
    { method: 'get', path: '/api/v1/rl/steps', tag: 'rl', summary: 'RL rollouts per training step or policy version', description: FILTERS, query: stepsSchema, answers: [json(200, 'RlSteps (schemas/api.ts)')] },
    { method: 'get', path: '/api/v1/rl/tasks', tag: 'rl', summary: 'RL rollouts per task: pass@k, verdicts, flaky verifiers', description: FILTERS, query: tasksSchema, answers: [json(200, 'RlTasks (schemas/api.ts)')] },
    { method: 'get', path: '/api/v1/environments', tag: 'rl', summary: 'RL rollouts per environment', description: FILTERS, query: runFiltersSchema, answers: [json(200, 'Environments (schemas/api.ts)')] },
    { method: 'post', path: '/api/v1/rl/trainer', tag: 'rl', summary: 'Report the trainer\'s current step', body: { schema: trainerSchema }, answers: [json(200, 'what was recorded', answers.trainerAnswer)] },
    // ── sql
    { method: 'post', path: '/api/v1/sql', tag: 'sql', summary: 'Run a read-only SQL query', description: 'Values as {name:Type} parameters. Errors: sql_rejected / sql_error (400), sql_readonly / sql_forbidden (403), sql_limit (422).', body: { schema: sqlBody }, answers: [json(200, 'typed columns, rows and what the query cost', answers.sqlResult)] },
    { method: 'get', path: '/api/v1/sql/schema', tag: 'sql', summary: 'The tables and columns the console may query', answers: [json(200, 'tables with their columns, types and descriptions', answers.sqlSchema)] },
    { method: 'get', path: '/api/v1/sql/saved', tag: 'sql', summary: 'Saved queries of a project', query: savedListQuery, answers: [json(200, 'the project and its saved queries', answers.savedQueryList)] },
    { method: 'post', path: '/api/v1/sql/saved', tag: 'sql', summary: 'Save a query (with id: replace that one)', body: { schema: saveBody }, answers: [json(201, 'the new saved query', answers.savedQuery), json(200, 'the replaced saved query', answers.savedQuery)] },
    { method: 'delete', path: '/api/v1/sql/saved/{id}', tag: 'sql', summary: 'Delete a saved query', params: savedIdParam, query: savedListQuery, answers: [noBody(204, 'deleted')] },
    // ── keys
    { method: 'post', path: '/api/v1/keys', tag: 'keys', summary: 'Create an API key (shown once)', body: { schema: createBody }, answers: [json(201, 'the key, shown this once', answers.createdApiKey)] },
    { method: 'get', path: '/api/v1/keys', tag: 'keys', summary: 'List API keys (never the keys themselves)', answers: [json(200, 'the keys with a hint each', answers.apiKeyList)] },
    { method: 'delete', path: '/api/v1/keys/{id}', tag: 'keys', summary: 'Revoke an API key (at once)', params: keyId, answers: [json(200, 'the revoked key', answers.apiKeyInfo)] },
    { method: 'get', path: '/api/v1/auth/whoami', tag: 'keys', summary: 'How the server sees the caller', answers: [json(200, 'mode, scope and project of the caller', answers.whoAmI)] },
    // ── alerts
    { method: 'get', path: '/api/v1/alerts/rules', tag: 'alerts', summary: 'List alert rules', answers: [json(200, '{"rules": [...]} (secrets as has_secret, webhook URLs redacted)')] },
    { method: 'post', path: '/api/v1/alerts/rules', tag: 'alerts', summary: 'Create an alert rule', body: { schema: ruleInput }, answers: [json(201, 'the rule')] },
    { method: 'get', path: '/api/v1/alerts/rules/{id}', tag: 'alerts', summary: 'An alert rule', params: ruleIdParam, answers: [json(200, 'the rule')] },
    { method: 'put', path: '/api/v1/alerts/rules/{id}', tag: 'alerts', summary: 'Replace an alert rule', description: 'A webhook named by its id keeps its secret, and its URL when the URL sent is the redacted one shown.', params: ruleIdParam, body: { schema: ruleInput }, answers: [json(200, 'the rule')] },
    { method: 'delete', path: '/api/v1/alerts/rules/{id}', tag: 'alerts', summary: 'Delete an alert rule', params: ruleIdParam, answers: [noBody(204, 'deleted')] },
    { method: 'post', path: '/api/v1/alerts/rules/{id}/enable', tag: 'alerts', summary: 'Enable an alert rule', params: ruleIdParam, answers: [json(200, 'the rule')] },
    { method: 'post', path: '/api/v1/alerts/rules/{id}/disable', tag: 'alerts', summary: 'Disable an alert rule', params: ruleIdParam, answers: [json(200, 'the rule')] },
    { method: 'post', path: '/api/v1/alerts/rules/{id}/test', tag: 'alerts', summary: 'Send a test alert to the rule\'s webhooks (or one)', params: ruleIdParam, body: { schema: testBody }, answers: [json(202, 'the ids of the deliveries made', z.object({ deliveries: z.array(z.string()) }))] },
    { method: 'get', path: '/api/v1/alerts/firings', tag: 'alerts', summary: 'Firing history', query: firingsQuery, answers: [json(200, '{"firings": [...]} (AlertFiring in schemas/api.ts)')] },
    { method: 'get', path: '/api/v1/alerts/deliveries', tag: 'alerts', summary: 'Webhook deliveries with every attempt', query: deliveriesQuery, answers: [json(200, '{"deliveries": [...]} (AlertDelivery in schemas/api.ts)')] },
    { method: 'post', path: '/api/v1/alerts/evaluate', tag: 'alerts', summary: 'Evaluate the window rules now', answers: [json(200, 'once evaluated', z.object({ evaluated: z.literal(true) }))] },
    // ── status
    { method: 'get', path: '/healthz', tag: 'status', summary: 'The process is up', answers: [json(200, 'up', answers.healthAnswer)] },
    { method: 'get', path: '/readyz', tag: 'status', summary: 'Storage reachable, writes not failing, Kafka reachable when configured', description: 'With keys required, only admin keys get more than {"status"}.', answers: [json(200, 'ready', answers.readyAnswer), json(503, 'unready', answers.readyAnswer)] },
    { method: 'get', path: '/api/v1/ingest/status', tag: 'status', summary: 'Ingest health: Kafka lag or the writer, recent activity and rejections', answers: [json(200, 'IngestStatus (schemas/ingest-status.ts)')] },
    { method: 'get', path: '/metrics', tag: 'status', summary: 'Prometheus metrics of this process (admin)', description: 'The Prometheus text exposition format; every metric is described in docs/metrics.md.', answers: [{ status: 200, description: 'the metrics', contentType: 'text/plain' }] },
    { method: 'get', path: '/api/v1/analysis/status', tag: 'status', summary: 'The run analyzer\'s backlog and rate', answers: [json(200, 'AnalysisStatus (schemas/ingest-status.ts)')] },
    // ── meta
    { method: 'get', path: '/api/v1/openapi.json', tag: 'meta', summary: 'This OpenAPI 3.1 description of the API', answers: [json(200, 'an OpenAPI 3.1 document')] },
    // ── dashboard
    { method: 'get', path: '/', tag: 'dashboard', summary: 'The dashboard (its index page answers every client-side route outside /api and /v1)', answers: [{ status: 200, description: 'the index page', contentType: 'text/html' }] },
    { method: 'get', path: '/assets/{name}', tag: 'dashboard', summary: 'A file of the dashboard\'s build', params: z.object({ name: z.string() }), answers: [{ status: 200, description: 'the file', contentType: 'application/octet-stream' }, { status: 404, description: 'no such asset', contentType: 'text/plain' }] },
  ];
}
