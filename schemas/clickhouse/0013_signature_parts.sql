-- Signature parts of each step and tool call (analytics/signed-step.ts: stepParts, callParts),
-- worked out once at ingest, so the run analyzer signs a run without reading its texts back.
-- sig_version 0 marks a row stored before these columns: the analyzer reads its texts instead.
ALTER TABLE steps
    ADD COLUMN IF NOT EXISTS sig_version UInt8 DEFAULT 0,
    ADD COLUMN IF NOT EXISTS sig_action String DEFAULT '' CODEC(ZSTD(1)),
    ADD COLUMN IF NOT EXISTS sig_observation String DEFAULT '' CODEC(ZSTD(1));
ALTER TABLE tool_calls
    ADD COLUMN IF NOT EXISTS sig_version UInt8 DEFAULT 0,
    ADD COLUMN IF NOT EXISTS sig_call String DEFAULT '' CODEC(ZSTD(1)),
    ADD COLUMN IF NOT EXISTS sig_output String DEFAULT '' CODEC(ZSTD(1));
