-- API keys (issue 7). Only the SHA-256 hash of a key is stored, never the key. Every change
-- (creation, revocation) inserts a row with a higher version; reads take the newest row per id.

CREATE TABLE IF NOT EXISTS api_keys
(
    id String,
    version UInt64,
    project String,
    scope LowCardinality(String),
    name String,
    key_hash String,
    key_hint String,
    created_at DateTime64(3, 'UTC'),
    revoked_at Nullable(DateTime64(3, 'UTC'))
)
ENGINE = ReplacingMergeTree(version)
ORDER BY id
COMMENT 'API keys: project, scope (ingest, read, admin) and the SHA-256 hash of the key; the row with the highest version wins';
