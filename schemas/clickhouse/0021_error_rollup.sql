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
-- Analyses written before these columns existed: the occurrences of their runs, from the stored
-- rows by the SQL of errorOccurrencesSql, written as a newer version of each analysis whose run
-- has any (the others have none to keep). Each keeps the time up to which it covers its run's
-- rows: a run with rows stored since stays stale, read raw until it is analysed again. Applied
-- again after a stop, it finds no analysis left without them. On a cluster each shard joins its
-- own rows (one run's rows are on one shard).
INSERT INTO run_analysis SETTINGS distributed_foreground_insert = 1, distributed_product_mode = 'local'
SELECT a.* REPLACE (a.version + 1 AS version, e.occurrences AS step_error_occurrences, e.templates AS step_error_templates,
                    e.tools AS step_error_tools, e.times AS step_error_ts)
FROM run_analysis AS a FINAL
INNER JOIN
(
    SELECT project, run_id, groupArray(occurrence) AS occurrences, groupArray(template) AS templates, groupArray(first_tool) AS tools,
           groupArray(first_ts) AS times
    FROM
    (
        SELECT project, run_id, occurrence, template, argMinIf(tool, ts, tool != '') AS first_tool, min(ts) AS first_ts
        FROM
        (
            SELECT project, run_id, toString(step) AS occurrence, '' AS tool, error_template AS template, ts
            FROM steps WHERE error_template != ''
            UNION ALL
            SELECT project, run_id, ifNull(toString(step), concat('call:', call_id)) AS occurrence, toString(tool) AS tool,
                   error_template AS template, ts
            FROM tool_calls WHERE error_template != ''
        )
        GROUP BY project, run_id, occurrence, template
    )
    GROUP BY project, run_id
) AS e ON e.project = a.project AND e.run_id = a.run_id
WHERE empty(a.step_error_templates);
