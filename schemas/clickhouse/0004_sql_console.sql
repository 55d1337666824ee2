-- The SQL console: a log of the queries it ran, and descriptions of the tables and columns that
-- the schema browser shows (GET /api/v1/sql/schema).

CREATE TABLE IF NOT EXISTS sql_query_log
(
    ts DateTime64(3, 'UTC') DEFAULT now64(3),
    project LowCardinality(String),
    sql String CODEC(ZSTD(1)),
    params String CODEC(ZSTD(1)),
    status LowCardinality(String),
    error String CODEC(ZSTD(1)),
    duration_ms Float64,
    result_rows UInt64,
    rows_read UInt64,
    bytes_read UInt64
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY ts
TTL toDateTime(ts) + INTERVAL 90 DAY;

ALTER TABLE runs MODIFY COMMENT 'Run fields as events arrive: one row per run_start, run_end and batch of other events. Merge per run with GROUP BY project, run_id using min/max/anyLast (or SELECT ... FINAL)';
ALTER TABLE runs COMMENT COLUMN first_event_at 'time of the earliest event of the run', COMMENT COLUMN last_event_at 'time of the latest event of the run', COMMENT COLUMN started_at 'run_start time', COMMENT COLUMN ended_at 'run_end time', COMMENT COLUMN status 'run_end status: success, failure, error, timeout, cancelled (NULL while running)', COMMENT COLUMN model 'model named by run_start', COMMENT COLUMN step_model 'model named by steps', COMMENT COLUMN tags 'run_start tags as a JSON object', COMMENT COLUMN failure_mode 'failure label given by the sender in run_end';

ALTER TABLE steps MODIFY COMMENT 'One row per step of a run (natural key project, run_id, step); use FINAL for exact counts';
ALTER TABLE steps COMMENT COLUMN step '0-based step index', COMMENT COLUMN input_tokens 'prompt tokens, cache reads and writes included', COMMENT COLUMN cost_usd 'cost as sent, else priced from the model table', COMMENT COLUMN cost_estimated 'true when cost_usd was priced from the model table', COMMENT COLUMN latency_ms 'model latency', COMMENT COLUMN action 'what the agent did, as text', COMMENT COLUMN observation 'what came back (truncated to the configured limit)', COMMENT COLUMN truncated 'true when some text was cut', COMMENT COLUMN metadata 'fields outside the contract, as JSON';

ALTER TABLE tool_calls MODIFY COMMENT 'One row per tool call (natural key project, run_id, call_id); use FINAL for exact counts';
ALTER TABLE tool_calls COMMENT COLUMN step 'step the call belongs to', COMMENT COLUMN tool 'tool name', COMMENT COLUMN arguments 'arguments as canonical JSON text (keys sorted)', COMMENT COLUMN status 'ok or error', COMMENT COLUMN duration_ms 'time spent in the environment', COMMENT COLUMN output 'result text (truncated)';

ALTER TABLE scores MODIFY COMMENT 'Scores of runs by verifiers, humans and judges (natural key project, run_id, name, source); use FINAL';
ALTER TABLE scores COMMENT COLUMN name 'score name', COMMENT COLUMN value 'score value', COMMENT COLUMN source 'verifier, human or judge';
