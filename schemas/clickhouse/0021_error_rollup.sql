-- Each analysed run's error occurrences (docs/errors.md): one element per step (or, for a tool
-- call without a step, per call) and template, with the tool of its first tool-call row and the
-- time of its first row. Written by the run analyzer from the same SQL that the errors endpoint
-- runs over the raw rows of runs not analysed yet (storage/queries/error-rows-sql.ts), so
-- GET /api/v1/errors reads one row per run instead of grouping every error row. A run's final
-- error is not among them: it is run_analysis.final_error_template (0019_final_errors.sql).
ALTER TABLE run_analysis
    ADD COLUMN IF NOT EXISTS step_error_occurrences Array(String) CODEC(ZSTD(1)) AFTER final_error_step,
    ADD COLUMN IF NOT EXISTS step_error_templates Array(String) CODEC(ZSTD(1)) AFTER step_error_occurrences,
    ADD COLUMN IF NOT EXISTS step_error_tools Array(LowCardinality(String)) AFTER step_error_templates,
    ADD COLUMN IF NOT EXISTS step_error_ts Array(DateTime64(3, 'UTC')) CODEC(ZSTD(1)) AFTER step_error_tools;
-- Analyses made before these columns existed cover no row any more: every page reads those runs
-- from their raw rows, and the analyzer's scan analyses them again (docs/analysis.md).
ALTER TABLE run_analysis UPDATE source_ingested_at = toDateTime64(0, 6, 'UTC') WHERE 1 SETTINGS mutations_sync = 2;
