// Splits the runs due for analysis into the batches they are read back in: consecutive in key
// order (each batch then covers one narrow range of the (project, run_id) index), at most
// `maxRuns` runs and, as far as a run allows, `maxRows` step and tool-call rows. The rows bound
// keeps a batch of long runs from being read into memory at once; a run longer than it is read
// alone.

/** `ids` sorted; `rows` the step and tool-call rows stored of each run (absent: none). */
export function planReadBatches(ids: readonly string[], rows: ReadonlyMap<string, number>, maxRuns: number, maxRows: number): string[][] {
  const out: string[][] = [];
  let batch: string[] = [];
  let batchRows = 0;
  for (const id of ids) {
    const n = rows.get(id) ?? 0;
    if (batch.length > 0 && (batch.length >= maxRuns || batchRows + n > maxRows)) {
      out.push(batch);
      batch = [];
      batchRows = 0;
    }
    batch.push(id);
    batchRows += n;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}
