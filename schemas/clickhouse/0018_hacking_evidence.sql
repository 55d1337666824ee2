-- Reward-hacking evidence of each analysed run (analytics/hacking-evidence.ts, docs/analyses.md):
-- the kinds found (each once) and the evidence itself (kind, step, source, matched text) as JSON.
-- Looked for in every ended run, successful or not. Runs analysed before these columns existed
-- read none until their next analysis.
ALTER TABLE run_analysis
    ADD COLUMN IF NOT EXISTS hacking_kinds Array(LowCardinality(String)) DEFAULT [] AFTER suspicious_evidence,
    ADD COLUMN IF NOT EXISTS hacking_evidence String DEFAULT '' CODEC(ZSTD(3)) AFTER hacking_kinds;
