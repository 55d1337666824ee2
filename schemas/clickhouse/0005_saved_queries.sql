-- Saved SQL console queries, per project. Every change inserts a new row for (project, id) with a
-- higher version; a delete inserts a tombstone (deleted = 1). Reads take the newest row per id
-- (argMax by version) and drop tombstones, so nothing depends on when merges happen.

CREATE TABLE IF NOT EXISTS saved_queries
(
    project LowCardinality(String),
    id String,
    version UInt64,
    name String,
    sql String CODEC(ZSTD(1)),
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    deleted UInt8 DEFAULT 0
)
ENGINE = ReplacingMergeTree(version, deleted)
ORDER BY (project, id)
COMMENT 'Saved SQL console queries (natural key project, id); the row with the highest version wins, deleted = 1 is a tombstone';

ALTER TABLE saved_queries COMMENT COLUMN id 'saved query id', COMMENT COLUMN version 'change counter: the highest wins', COMMENT COLUMN name 'name shown in the console', COMMENT COLUMN sql 'the query text', COMMENT COLUMN deleted '1 when the query was deleted';
