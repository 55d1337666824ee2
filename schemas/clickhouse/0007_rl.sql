-- RL rollouts (issue 9). The `rl` fields of run_start are already in `runs` (0001); here the
-- run analyzer copies them into run_analysis with the per-run rollups the RL views need, so the
-- training, task and environment views read one row per rollout.
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS rl_training_step Nullable(Int64);
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS rl_policy_version LowCardinality(String) DEFAULT '';
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS rl_group_id String DEFAULT '';
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS rl_sample_index Nullable(Int32);
-- Hash of the run's action signatures in step order ('' when it has none): equal hashes are
-- identical action sequences (flaky-verifier detection).
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS action_sequence String DEFAULT '';
-- Environment (sandbox) time: the run's tool-call durations, summed and one by one.
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS tool_ms_sum Float64 DEFAULT 0;
ALTER TABLE run_analysis ADD COLUMN IF NOT EXISTS tool_ms Array(Float32) CODEC(ZSTD(1));

-- The trainer's current step as it reports it (POST /api/v1/rl/trainer); the latest per project
-- is what rollouts' policy staleness is measured against.
CREATE TABLE IF NOT EXISTS rl_trainer_steps
(
    project LowCardinality(String),
    reported_at DateTime64(3, 'UTC'),
    training_step Int64,
    policy_version String
)
ENGINE = ReplacingMergeTree
ORDER BY (project, reported_at);
