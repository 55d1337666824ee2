-- The text a failed run ended with (analytics/final-error.ts, docs/errors.md): run_end's error
-- message, else its last step's observation when that step recorded no error of its own; with its
-- source ('run_end' or 'final_observation') and step. Written by the run analyzer; runs analysed
-- before these columns existed read none until their next analysis. final_error_template masks
-- its variable parts exactly as the error templates of steps and tool calls do (the expression of
-- 0017_error_templates.sql over final_error; a test checks the three give the same template for
-- the same text), so GET /api/v1/errors groups a run's end with the step errors of its kind.
ALTER TABLE run_analysis
    ADD COLUMN IF NOT EXISTS final_error String DEFAULT '' CODEC(ZSTD(3)) AFTER hacking_evidence,
    ADD COLUMN IF NOT EXISTS final_error_source LowCardinality(String) DEFAULT '' AFTER final_error,
    ADD COLUMN IF NOT EXISTS final_error_step Nullable(UInt32) AFTER final_error_source;
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS final_error_template String MATERIALIZED
    if(final_error = '', '', substringUTF8(trimBoth(replaceRegexpAll(
      replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(
        if(length(arrayFilter(l -> notEmpty(l), arrayMap(l -> trimBoth(l), splitByChar('\n',
             replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(final_error, '`[^`]*`', '`<*>`'), '(^|[^\\w])\'[^\'\\n]*\'', '\\1\'<*>\''), '"[^"\\n]*"', '"<*>"')))) AS error_lines) > 1
             AND lengthUTF8(error_lines[1]) < 40,
           concat(error_lines[1], ' … ', error_lines[-1]), error_lines[1]),
        '\\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\b', '<id>'),
        '\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?|\\b\\d{1,2}:\\d{2}:\\d{2}(\\.\\d+)?\\b', '<time>'),
        '(/[\\w.@+-]+){2,}/?|\\b[\\w.-]+(/[\\w.@+-]+)+\\.[A-Za-z]\\w*\\b', '<path>'),
        '\\b[\\w-]+(\\.[\\w-]+)*\\.(py|pyi|ipynb|js|jsx|ts|tsx|mjs|cjs|json|jsonl|yaml|yml|toml|ini|cfg|txt|md|rst|sql|sh|c|h|cc|cpp|hpp|go|rs|java|kt|rb|php|cs|swift|html|css|xml|csv|log|lock)\\b', '<file>'),
        '(^|[^\\w])-(\\d)', '\\1\\2'),
        '\\b[A-Za-z_.-]*\\d[\\w.-]*', '<n>'),
      '\\s+', ' ')), 1, 200))
    COMMENT 'final_error with its variable parts masked (0019_final_errors.sql); empty without one' CODEC(ZSTD(1));
