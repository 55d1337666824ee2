-- Error templates (docs/errors.md): the error message of each step and tool call with its
-- variable parts masked, so that the same failure with other ids, numbers, paths or quoted values
-- gets the same template, and GET /api/v1/errors groups them; its signature is
-- lower(hex(cityHash64(error_template))). Computed by the engine as rows are stored (MATERIALIZED:
-- inserts need not name it; SELECT * leaves it out), and for rows stored before this migration by
-- the MATERIALIZE statements below, in the background.
--
-- How a message becomes its template, in order:
--   1. quoted values (`...`, '...', "...") become `<*>`, '<*>', "<*>" (a backquoted value may span lines);
--   2. of its non-empty lines the first is kept, and when that one is short (under 40 characters:
--      "Traceback (most recent call last):", "ERROR:", "Exit code 1") and more follow, also the last;
--   3. UUIDs become <id>; dates and times <time>; paths of two segments or more <path>; file
--      names with a known extension <file>; a minus before a number goes; words holding a digit
--      (numbers, ids such as HAT030 or gift_card_5094406, hex digests) become <n>;
--   4. whitespace is collapsed, and the template cut at 200 characters.
ALTER TABLE steps ADD COLUMN IF NOT EXISTS error_template String MATERIALIZED
    if(error_message = '', '', substringUTF8(trimBoth(replaceRegexpAll(
      replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(
        if(length(arrayFilter(l -> notEmpty(l), arrayMap(l -> trimBoth(l), splitByChar('\n',
             replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(error_message, '`[^`]*`', '`<*>`'), '(^|[^\\w])\'[^\'\\n]*\'', '\\1\'<*>\''), '"[^"\\n]*"', '"<*>"')))) AS error_lines) > 1
             AND lengthUTF8(error_lines[1]) < 40,
           concat(error_lines[1], ' … ', error_lines[-1]), error_lines[1]),
        '\\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\b', '<id>'),
        '\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?|\\b\\d{1,2}:\\d{2}:\\d{2}(\\.\\d+)?\\b', '<time>'),
        '(/[\\w.@+-]+){2,}/?|\\b[\\w.-]+(/[\\w.@+-]+)+\\.[A-Za-z]\\w*\\b', '<path>'),
        '\\b[\\w-]+(\\.[\\w-]+)*\\.(py|pyi|ipynb|js|jsx|ts|tsx|mjs|cjs|json|jsonl|yaml|yml|toml|ini|cfg|txt|md|rst|sql|sh|c|h|cc|cpp|hpp|go|rs|java|kt|rb|php|cs|swift|html|css|xml|csv|log|lock)\\b', '<file>'),
        '(^|[^\\w])-(\\d)', '\\1\\2'),
        '\\b[A-Za-z_.-]*\\d[\\w.-]*', '<n>'),
      '\\s+', ' ')), 1, 200))
    COMMENT 'the error message with its variable parts masked (0017_error_templates.sql); empty without an error' CODEC(ZSTD(1));
ALTER TABLE tool_calls ADD COLUMN IF NOT EXISTS error_template String MATERIALIZED
    if(error_message = '', '', substringUTF8(trimBoth(replaceRegexpAll(
      replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(
        if(length(arrayFilter(l -> notEmpty(l), arrayMap(l -> trimBoth(l), splitByChar('\n',
             replaceRegexpAll(replaceRegexpAll(replaceRegexpAll(error_message, '`[^`]*`', '`<*>`'), '(^|[^\\w])\'[^\'\\n]*\'', '\\1\'<*>\''), '"[^"\\n]*"', '"<*>"')))) AS error_lines) > 1
             AND lengthUTF8(error_lines[1]) < 40,
           concat(error_lines[1], ' … ', error_lines[-1]), error_lines[1]),
        '\\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\b', '<id>'),
        '\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?|\\b\\d{1,2}:\\d{2}:\\d{2}(\\.\\d+)?\\b', '<time>'),
        '(/[\\w.@+-]+){2,}/?|\\b[\\w.-]+(/[\\w.@+-]+)+\\.[A-Za-z]\\w*\\b', '<path>'),
        '\\b[\\w-]+(\\.[\\w-]+)*\\.(py|pyi|ipynb|js|jsx|ts|tsx|mjs|cjs|json|jsonl|yaml|yml|toml|ini|cfg|txt|md|rst|sql|sh|c|h|cc|cpp|hpp|go|rs|java|kt|rb|php|cs|swift|html|css|xml|csv|log|lock)\\b', '<file>'),
        '(^|[^\\w])-(\\d)', '\\1\\2'),
        '\\b[A-Za-z_.-]*\\d[\\w.-]*', '<n>'),
      '\\s+', ' ')), 1, 200))
    COMMENT 'the error message with its variable parts masked (0017_error_templates.sql); empty without an error' CODEC(ZSTD(1));
ALTER TABLE steps MATERIALIZE COLUMN error_template;
ALTER TABLE tool_calls MATERIALIZE COLUMN error_template;
