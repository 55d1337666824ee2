-- Full-text indexes (ClickHouse text indexes, generally available from 26.2) on the texts that
-- GET /api/v1/search reads: a step's action, observation and error, a tool call's arguments,
-- output and error. Each maps the lower-cased tokens of its column (tokenizer splitByNonAlpha,
-- as the engine's tokens(text, 'splitByNonAlpha') cuts them) to the rows holding them, so a
-- word or phrase search reads only the granules that hold its words instead of every text.
-- Queries use them through hasAllTokens(column, [lower-cased tokens]); see docs/search.md.
-- Rows stored before this migration are indexed by its MATERIALIZE statements, mutations that
-- run in the background (they read every text once: about 10 s for 2.4 million steps and as many
-- tool calls here). Until a part is indexed, a search reads its texts and finds the same rows
-- (the engine applies the index's preprocessor), only slower.
ALTER TABLE steps
    ADD INDEX IF NOT EXISTS text_action(action) TYPE text(tokenizer = splitByNonAlpha, preprocessor = lowerUTF8(action)),
    ADD INDEX IF NOT EXISTS text_observation(observation) TYPE text(tokenizer = splitByNonAlpha, preprocessor = lowerUTF8(observation)),
    ADD INDEX IF NOT EXISTS text_error_message(error_message) TYPE text(tokenizer = splitByNonAlpha, preprocessor = lowerUTF8(error_message));
ALTER TABLE steps MATERIALIZE INDEX text_action, MATERIALIZE INDEX text_observation, MATERIALIZE INDEX text_error_message;
ALTER TABLE tool_calls
    ADD INDEX IF NOT EXISTS text_arguments(arguments) TYPE text(tokenizer = splitByNonAlpha, preprocessor = lowerUTF8(arguments)),
    ADD INDEX IF NOT EXISTS text_output(output) TYPE text(tokenizer = splitByNonAlpha, preprocessor = lowerUTF8(output)),
    ADD INDEX IF NOT EXISTS text_error_message(error_message) TYPE text(tokenizer = splitByNonAlpha, preprocessor = lowerUTF8(error_message));
ALTER TABLE tool_calls MATERIALIZE INDEX text_arguments, MATERIALIZE INDEX text_output, MATERIALIZE INDEX text_error_message;
