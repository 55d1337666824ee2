-- Signature parts of each step and tool call (analytics/signed-step.ts: stepParts, callParts),
-- worked out once at ingest, so the run analyzer signs a run without reading its texts back.
-- sig_version 0 marks a row stored before these columns: the analyzer reads its texts instead.
ALTER TABLE steps
    ADD COLUMN IF NOT EXISTS sig_version UInt8 DEFAULT 0 COMMENT 'version of the signature parts (0: stored before them)',
    ADD COLUMN IF NOT EXISTS sig_action String DEFAULT '' COMMENT 'digest of the action text, whitespace collapsed (empty text: empty)' CODEC(ZSTD(1)),
    ADD COLUMN IF NOT EXISTS sig_observation String DEFAULT '' COMMENT 'digest of the observation, whitespace collapsed and volatile tokens masked (empty text: empty)' CODEC(ZSTD(1));
ALTER TABLE tool_calls
    ADD COLUMN IF NOT EXISTS sig_version UInt8 DEFAULT 0 COMMENT 'version of the signature parts (0: stored before them)',
    ADD COLUMN IF NOT EXISTS sig_call String DEFAULT '' COMMENT 'digest of the tool name and canonical arguments: the action of a step with this call alone' CODEC(ZSTD(1)),
    ADD COLUMN IF NOT EXISTS sig_output String DEFAULT '' COMMENT 'digest of the output, whitespace collapsed and volatile tokens masked (empty text: empty)' CODEC(ZSTD(1));
