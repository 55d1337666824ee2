// Ended runs written straight into the tables by the engine (INSERT ... SELECT FROM numbers()),
// for filling a backlog of a million runs in seconds rather than through the ingest path: a
// run_start and a run_end row in `runs`, 3 to 8 steps with one tool call each (signature parts
// stored as ingest stores them), a verifier score for runs that failed their tests. Run ids are
// hashes, so consecutive runs land all over the (project, run_id) key space, as real ids do.
// Outcomes by run number (n % 10): 0 a dead loop (every step the same action and observation,
// status failure), 1-4 success, 5-6 failure with failed tests (verifier score 0), 7 error (a
// sandbox error), 8 timeout, 9 failure whose last tool calls failed. Used by bench/run-analysis.ts
// and the analyzer's tests; never by the product.
import type { Storage } from '../storage/gateway.js';

export interface SyntheticRuns {
  project: string;
  /** First run number (run ids are a hash of it and `seed`). */
  from: number;
  count: number;
  /** Start time of run number 0 (ms); run n starts n seconds later. */
  startMs: number;
  seed?: number;
  /** When their rows count as stored (runs.ingested_at, ms); default: now. */
  storedMs?: number;
}

const RUN = `concat('syn-', lower(hex(cityHash64({seed:UInt64}, number))))`;
const STEPS = `toUInt32(3 + cityHash64({seed:UInt64}, number, 'k') % 6)`;
const START = `fromUnixTimestamp64Milli(toInt64({start:Int64} + number * 1000), 'UTC')`;

/** The id of run number n of a seed (as the SQL makes it). */
export async function syntheticRunIds(storage: Storage, from: number, count: number, seed = 1): Promise<string[]> {
  const rows = await storage.query<{ id: string }>(`SELECT ${RUN} AS id FROM numbers({from:UInt64}, {count:UInt64})`, { seed, from, count });
  return rows.map((r) => r.id);
}

/** Writes the runs' rows into runs, steps, tool_calls and scores. */
export async function insertSyntheticRuns(storage: Storage, o: SyntheticRuns): Promise<void> {
  const p = { project: o.project, from: o.from, count: o.count, start: o.startMs, seed: o.seed ?? 1, stored: o.storedMs ?? Date.now() };
  const STORED = 'fromUnixTimestamp64Milli(toInt64({stored:Int64}), \'UTC\')';
  // The steps of a run, one row each: number is the run, i the step.
  const steps = `SELECT number, ${RUN} AS run_id, arrayJoin(range(${STEPS})) AS i, number % 10 AS kind, ${STEPS} AS k,
                        ${START} + toIntervalMillisecond((i + 1) * 1000) AS ts,
                        if(kind = 0, 'cat notes.txt', concat('edit src/file', toString(i), '.py')) AS action,
                        if(kind = 0, 'no such file', concat('ok ', toString(i))) AS observation,
                        (kind = 9 AND i + 3 >= k) OR (kind = 7 AND i + 1 = k) AS failed
                 FROM numbers({from:UInt64}, {count:UInt64})`;
  await storage.command(
    `INSERT INTO runs (project, run_id, first_event_at, last_event_at, started_at, agent_name, agent_version, model, task_id,
                       task_category, environment, max_steps, budget_usd, ingested_at)
     SELECT {project:String}, ${RUN}, ${START}, ${START}, ${START}, 'bench-agent', concat('v', toString(number % 3)), 'gpt-4o',
            concat('task-', toString(number % 500)), ['bugfix', 'feature', 'refactor'][number % 3 + 1], 'docker', 50, 5, ${STORED}
     FROM numbers({from:UInt64}, {count:UInt64})`,
    p,
  );
  await storage.command(
    `INSERT INTO runs (project, run_id, first_event_at, last_event_at, ended_at, status, reward, tests_passed, tests_failed,
                       error_type, error_message, step_model, ingested_at)
     SELECT {project:String}, ${RUN}, e, e, e, s, if(s = 'success', 1, 0), if(number % 10 IN (5, 6), 3, if(s = 'success', 5, NULL)),
            if(number % 10 IN (5, 6), 2, if(s = 'success', 0, NULL)), if(s = 'error', 'SandboxError', NULL),
            if(s = 'error', 'container exited: OOMKilled', NULL), 'gpt-4o', ${STORED}
     FROM (SELECT number, ${START} + toIntervalMillisecond((${STEPS} + 1) * 1000) AS e,
                  multiIf(number % 10 IN (1, 2, 3, 4), 'success', number % 10 = 7, 'error', number % 10 = 8, 'timeout', 'failure') AS s
           FROM numbers({from:UInt64}, {count:UInt64}))`,
    p,
  );
  await storage.command(
    `INSERT INTO steps (project, run_id, step, event_id, ts, model, input_tokens, output_tokens, cost_usd, latency_ms, action,
                        observation, error_type, error_message, sig_version, sig_action, sig_observation)
     SELECT {project:String}, run_id, i, concat(run_id, '-s', toString(i)), ts, 'gpt-4o', 1000 + i * 200, 100 + number % 50,
            0.002 + i * 0.0005, 800 + number % 400, action, observation, '', '', 1, hex(MD5(action)), concat(hex(MD5(observation)), if(failed, ':e', ''))
     FROM (${steps})`,
    p,
  );
  await storage.command(
    `INSERT INTO tool_calls (project, run_id, call_id, step, event_id, ts, tool, arguments, status, error_type, error_message,
                             duration_ms, output, sig_version, sig_call, sig_output)
     SELECT {project:String}, run_id, concat('c', toString(i)), i, concat(run_id, '-c', toString(i)), ts, 'bash',
            concat('{"cmd":"', action, '"}'), if(failed, 'error', 'ok'), if(failed, 'CommandFailed', ''), if(failed, 'exit 1', ''),
            150 + number % 100, observation, 1, hex(MD5(concat('bash', action))), hex(MD5(observation))
     FROM (${steps})`,
    p,
  );
  await storage.command(
    `INSERT INTO scores (project, run_id, name, source, event_id, ts, value)
     SELECT {project:String}, ${RUN}, 'tests', 'verifier', concat(${RUN}, '-score'), ${START} + toIntervalSecond(20), 0
     FROM numbers({from:UInt64}, {count:UInt64}) WHERE number % 10 IN (5, 6)`,
    p,
  );
}

/**
 * A current analysis (its source_ingested_at the run's watermark) for every run of the project
 * stored so far, written by SQL without analysing anything: runs that need no analysis, beside
 * which a backlog can be put.
 */
export async function insertCurrentAnalyses(storage: Storage, project: string): Promise<void> {
  await storage.command(
    `INSERT INTO run_analysis (project, run_id, version, analyzed_at, source_ingested_at, started_at, ended_at, last_event_at, status, model)
     SELECT project, run_id, 1, now64(3), max(ingested_at), ifNull(min(started_at), min(first_event_at)), max(ended_at), max(last_event_at),
            ifNull(anyLast(status), 'running'), ifNull(anyLast(model), ifNull(anyLast(step_model), ''))
     FROM runs WHERE project = {project:String} GROUP BY project, run_id`,
    { project },
  );
}
