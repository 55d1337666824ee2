-- The run analyzer's verdicts and per-run rollups, and the signals of live detectors.

-- When each run's rows were last stored (max over its rows): an analysis whose
-- source_ingested_at is older than this is stale, and queries fall back to raw aggregation.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS ingested_at SimpleAggregateFunction(max, DateTime64(6, 'UTC')) DEFAULT now64(6);
-- Rows stored before this migration get one fixed time (else the default is computed at read).
ALTER TABLE runs MATERIALIZE COLUMN ingested_at SETTINGS mutations_sync = 2;

-- One row per analysis of a run; the newest (version) wins. The run's summary (run_start and
-- run_end fields, exact totals) is copied in, so analytics read one row per run.
CREATE TABLE IF NOT EXISTS run_analysis
(
    project LowCardinality(String),
    run_id String,
    version UInt64,
    analyzed_at DateTime64(3, 'UTC'),
    source_ingested_at DateTime64(6, 'UTC'),
    started_at DateTime64(3, 'UTC'),
    ended_at Nullable(DateTime64(3, 'UTC')),
    last_event_at DateTime64(3, 'UTC'),
    status LowCardinality(String),
    agent_name LowCardinality(String),
    agent_version LowCardinality(String),
    model LowCardinality(String),
    task_id String,
    task_category LowCardinality(String),
    environment LowCardinality(String),
    tags_json String CODEC(ZSTD(1)),
    parent_run_id String,
    max_steps Nullable(UInt32),
    budget_usd Nullable(Float64),
    reward Nullable(Float64),
    tests_passed Nullable(UInt32),
    tests_failed Nullable(UInt32),
    label_failure_mode LowCardinality(String),
    error_type LowCardinality(String),
    error_message String CODEC(ZSTD(3)),
    steps UInt32,
    tool_calls UInt32,
    tool_errors UInt32,
    input_tokens UInt64,
    output_tokens UInt64,
    cache_read_tokens UInt64,
    cache_write_tokens UInt64,
    reasoning_tokens UInt64,
    cost_usd Float64,
    cost_estimated Bool,
    latency_ms_sum Float64,
    latency_count UInt32,
    max_input_tokens UInt64,
    failure_mode LowCardinality(String),
    failure_rule LowCardinality(String),
    failure_reason String CODEC(ZSTD(3)),
    loop_count UInt16,
    loop_steps UInt32,
    loop_tokens UInt64,
    loop_cost_usd Float64,
    loops String CODEC(ZSTD(3)),
    suspicious Bool,
    suspicious_reasons Array(LowCardinality(String)),
    suspicious_evidence String CODEC(ZSTD(3)),
    self_corrected UInt32,
    rework_repeated UInt32,
    actions UInt32
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (project, run_id);

-- Signals of live detectors (loop_detected, ...), for the alerting issue to deliver.
CREATE TABLE IF NOT EXISTS signals
(
    project LowCardinality(String),
    kind LowCardinality(String),
    run_id String,
    signal_id String,
    ts DateTime64(3, 'UTC'),
    step UInt32,
    details String CODEC(ZSTD(3)),
    created_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(created_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (project, kind, run_id, signal_id);
