-- The per-step input tokens of a run (context blow-ups, cost spikes) were the largest column of
-- run_analysis (UInt64 with ZSTD: 20 MB per 100,000 runs, and most of the time of /costs/spikes
-- went to decompressing it). UInt32 with T64+LZ4 reads four times faster; a step's input never
-- nears 4.29 billion tokens, and the analyzer saturates the value there.
ALTER TABLE run_analysis MODIFY COLUMN step_input_tokens Array(UInt32) CODEC(T64, LZ4) SETTINGS mutations_sync = 2;
