-- Step- and tool-level rollups per run, so analytics that need them (context blow-ups, per-tool
-- success) read one row per run instead of every step and tool call.
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS step_input_tokens Array(UInt64) CODEC(ZSTD(1));
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS tool_names Array(LowCardinality(String));
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS tool_call_counts Array(UInt32);
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS tool_error_counts Array(UInt32);
