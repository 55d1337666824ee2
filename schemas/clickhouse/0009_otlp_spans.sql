-- Spans received on POST /v1/traces, staged per trace. Spans of one trace arrive in many
-- requests and in any order; each request re-derives the events of the traces it touched from
-- all their staged spans, so step numbers and parent links come out the same whatever the
-- order. Re-delivered spans replace themselves (natural key: project, trace, span).
-- Spans without gen_ai.* attributes are staged without attributes (only ids, name, times,
-- status), which is all the mapping needs of them.
CREATE TABLE IF NOT EXISTS otlp_spans
(
    project LowCardinality(String),
    trace_id String,
    span_id String,
    span String CODEC(ZSTD(1)),
    received_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(received_at)
ORDER BY (project, trace_id, span_id)
TTL toDateTime(received_at) + INTERVAL 30 DAY
SETTINGS non_replicated_deduplication_window = 10000;
