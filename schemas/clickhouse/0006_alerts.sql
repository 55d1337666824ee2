-- Alerting (issue 6): rules, their per-key state, firing history, the durable delivery outbox
-- and the log of every delivery attempt. Tables whose rows change are ReplacingMergeTree with a
-- version: every change inserts a new row, reads take the newest (FINAL or argMax), so nothing
-- depends on when merges happen.

CREATE TABLE IF NOT EXISTS alert_rules
(
    id String,
    version UInt64,
    name String,
    kind LowCardinality(String),
    enabled UInt8,
    definition String CODEC(ZSTD(1)),
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    deleted UInt8 DEFAULT 0
)
ENGINE = ReplacingMergeTree(version, deleted)
ORDER BY id
COMMENT 'Alert rules; definition is the rule JSON including webhook secrets (never returned by the API)';

-- Dedup and resolution state per rule and key (a run, or a cohort of a window rule).
CREATE TABLE IF NOT EXISTS alert_state
(
    rule_id String,
    key String,
    version UInt64,
    status LowCardinality(String),
    last_fired_at DateTime64(3, 'UTC'),
    changed_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (rule_id, key);

-- Every firing (and resolution and test), with the payload that was sent.
CREATE TABLE IF NOT EXISTS alert_firings
(
    firing_id String,
    rule_id String,
    rule_name String,
    kind LowCardinality(String),
    severity LowCardinality(String),
    status LowCardinality(String),
    key String,
    project String,
    run_id String,
    summary String,
    payload String CODEC(ZSTD(3)),
    fired_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY firing_id;

-- The outbox: one row per (firing, webhook), written before the first attempt; its state moves
-- pending → delivered | failed. Pending rows are picked up again after a restart.
CREATE TABLE IF NOT EXISTS alert_outbox
(
    delivery_id String,
    version UInt64,
    firing_id String,
    rule_id String,
    webhook_id String,
    url String,
    format LowCardinality(String),
    body String CODEC(ZSTD(3)),
    state LowCardinality(String),
    attempts UInt16,
    next_attempt_at DateTime64(3, 'UTC'),
    last_error String,
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY delivery_id;

-- One row per delivery attempt (URLs without credentials or query values).
CREATE TABLE IF NOT EXISTS alert_delivery_attempts
(
    delivery_id String,
    attempt UInt16,
    firing_id String,
    rule_id String,
    webhook_id String,
    url String,
    ts DateTime64(3, 'UTC'),
    outcome LowCardinality(String),
    status_code Nullable(UInt16),
    error String,
    duration_ms Float64
)
ENGINE = ReplacingMergeTree
ORDER BY (delivery_id, attempt);
