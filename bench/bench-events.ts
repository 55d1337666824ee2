// Synthetic step and tool-call events for the ingest benchmarks (deterministic).
export function benchEvents(total: number, project = 'bench'): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const t0 = Date.parse('2026-11-01T00:00:00Z');
  for (let i = 0; out.length < total; i++) {
    const run = `bench-run-${Math.floor(i / 100)}`;
    const step = i % 100;
    const ts = t0 + i * 10;
    out.push({
      v: 1, type: 'step', project, run_id: run, step, ts, model: 'claude-sonnet-4-5',
      input_tokens: 4000 + step * 120, output_tokens: 150 + (i % 50), cache_read_tokens: 3000 + step * 100, latency_ms: 1800 + (i % 700),
      action: `bash {"cmd":"grep -rn 'def handler_${i % 37}' src/ | head -20"}`,
      observation: `src/app/handlers.py:${i % 900}: def handler_${i % 37}(request, context):\n    return process(request)`,
    });
    if (out.length < total) {
      out.push({
        v: 1, type: 'tool_call', project, run_id: run, step, call_id: `call-${i}`, ts: ts + 5, tool: 'bash',
        arguments: { cmd: `grep -rn 'def handler_${i % 37}' src/ | head -20` }, status: i % 11 === 0 ? 'error' : 'ok', duration_ms: 120 + (i % 300),
        output: `src/app/handlers.py:${i % 900}: def handler_${i % 37}(request, context):`,
      });
    }
  }
  return out;
}
