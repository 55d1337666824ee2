-- Core tables. Every table is keyed by project first: every query of the product is per project.
-- Re-delivered events must not double count: events land in ReplacingMergeTree tables whose
-- sorting key is the event's natural key (queries that count use FINAL), and `runs` is an
-- AggregatingMergeTree of idempotent functions (min, max, anyLast), so a duplicate row changes nothing.

-- One row per event that touches a run (any type); merged per (project, run_id) at query time.
CREATE TABLE IF NOT EXISTS runs
(
    project LowCardinality(String),
    run_id String,
    first_event_at SimpleAggregateFunction(min, DateTime64(3, 'UTC')) CODEC(Delta, ZSTD(1)),
    last_event_at SimpleAggregateFunction(max, DateTime64(3, 'UTC')) CODEC(Delta, ZSTD(1)),
    started_at SimpleAggregateFunction(min, Nullable(DateTime64(3, 'UTC'))),
    ended_at SimpleAggregateFunction(max, Nullable(DateTime64(3, 'UTC'))),
    status SimpleAggregateFunction(anyLast, LowCardinality(Nullable(String))),
    agent_name SimpleAggregateFunction(anyLast, LowCardinality(Nullable(String))),
    agent_version SimpleAggregateFunction(anyLast, LowCardinality(Nullable(String))),
    model SimpleAggregateFunction(anyLast, LowCardinality(Nullable(String))),
    step_model SimpleAggregateFunction(anyLast, LowCardinality(Nullable(String))),
    task_id SimpleAggregateFunction(anyLast, Nullable(String)),
    task_category SimpleAggregateFunction(anyLast, LowCardinality(Nullable(String))),
    environment SimpleAggregateFunction(anyLast, LowCardinality(Nullable(String))),
    tags SimpleAggregateFunction(anyLast, Nullable(String)) CODEC(ZSTD(1)),
    parent_run_id SimpleAggregateFunction(anyLast, Nullable(String)),
    max_steps SimpleAggregateFunction(anyLast, Nullable(UInt32)),
    budget_usd SimpleAggregateFunction(anyLast, Nullable(Float64)),
    rl_training_step SimpleAggregateFunction(anyLast, Nullable(Int64)),
    rl_policy_version SimpleAggregateFunction(anyLast, LowCardinality(Nullable(String))),
    rl_group_id SimpleAggregateFunction(anyLast, Nullable(String)),
    rl_sample_index SimpleAggregateFunction(anyLast, Nullable(Int32)),
    reward SimpleAggregateFunction(anyLast, Nullable(Float64)),
    tests_passed SimpleAggregateFunction(anyLast, Nullable(UInt32)),
    tests_failed SimpleAggregateFunction(anyLast, Nullable(UInt32)),
    failure_mode SimpleAggregateFunction(anyLast, LowCardinality(Nullable(String))),
    error_type SimpleAggregateFunction(anyLast, LowCardinality(Nullable(String))),
    error_message SimpleAggregateFunction(anyLast, Nullable(String)) CODEC(ZSTD(1)),
    start_metadata SimpleAggregateFunction(anyLast, Nullable(String)) CODEC(ZSTD(1)),
    end_metadata SimpleAggregateFunction(anyLast, Nullable(String)) CODEC(ZSTD(1))
)
ENGINE = AggregatingMergeTree
ORDER BY (project, run_id)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS steps
(
    project LowCardinality(String),
    run_id String,
    step UInt32,
    event_id String CODEC(ZSTD(1)),
    ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
    model LowCardinality(String),
    input_tokens UInt64 CODEC(T64, ZSTD(1)),
    output_tokens UInt64 CODEC(T64, ZSTD(1)),
    cache_read_tokens UInt64 CODEC(T64, ZSTD(1)),
    cache_write_tokens UInt64 CODEC(T64, ZSTD(1)),
    reasoning_tokens UInt64 CODEC(T64, ZSTD(1)),
    cost_usd Float64 CODEC(Gorilla, ZSTD(1)),
    cost_estimated Bool,
    latency_ms Nullable(Float64),
    action String CODEC(ZSTD(1)),
    observation String CODEC(ZSTD(1)),
    error_type LowCardinality(String),
    error_message String CODEC(ZSTD(1)),
    truncated Bool,
    metadata String CODEC(ZSTD(1)),
    ingested_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (project, run_id, step)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS tool_calls
(
    project LowCardinality(String),
    run_id String,
    call_id String,
    step Nullable(UInt32),
    event_id String CODEC(ZSTD(1)),
    ts DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
    tool LowCardinality(String),
    arguments String CODEC(ZSTD(1)),
    status LowCardinality(String),
    error_type LowCardinality(String),
    error_message String CODEC(ZSTD(1)),
    duration_ms Nullable(Float64),
    output String CODEC(ZSTD(1)),
    truncated Bool,
    metadata String CODEC(ZSTD(1)),
    ingested_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (project, run_id, call_id)
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS scores
(
    project LowCardinality(String),
    run_id String,
    name LowCardinality(String),
    source LowCardinality(String),
    event_id String,
    ts DateTime64(3, 'UTC'),
    value Float64,
    comment String CODEC(ZSTD(1)),
    truncated Bool,
    metadata String CODEC(ZSTD(1)),
    ingested_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (project, run_id, name, source)
SETTINGS non_replicated_deduplication_window = 10000;
