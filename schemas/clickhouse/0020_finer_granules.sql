-- Steps and tool calls in granules of 1,024 rows instead of the engine's 8,192 (docs/search.md,
-- "Granules of 1,024 rows"). A search, the examples of an error and a run's page read whole
-- granules of text around the rows they want; at 8,192 rows a granule holds the texts of several
-- hundred steps of other runs. The engine does not change index_granularity of a table that
-- exists, so each table is copied into one made with it (CREATE TABLE ... AS keeps its columns,
-- codecs, comments, materialized columns and indexes), the two are exchanged and the old one is
-- dropped. Every statement can run again: when a copy stops part way (the process killed), the
-- migration starts again from its first statement, which drops the unfinished copy. Writers are
-- stopped while it runs (docs/deployment.md, "Upgrading"): rows written to a table during its
-- copy would stay in the old table. distributed_foreground_insert makes the copy on a cluster
-- (storage/cluster-ddl.ts) reach every shard before the exchange; elsewhere it changes nothing.
DROP TABLE IF EXISTS steps_0020;
CREATE TABLE steps_0020 AS steps
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (project, run_id, step)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 10000;
INSERT INTO steps_0020 SETTINGS distributed_foreground_insert = 1 SELECT * FROM steps;
EXCHANGE TABLES steps AND steps_0020;
DROP TABLE steps_0020;
DROP TABLE IF EXISTS tool_calls_0020;
CREATE TABLE tool_calls_0020 AS tool_calls
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (project, run_id, call_id)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 10000;
INSERT INTO tool_calls_0020 SETTINGS distributed_foreground_insert = 1 SELECT * FROM tool_calls;
EXCHANGE TABLES tool_calls AND tool_calls_0020;
DROP TABLE tool_calls_0020;
