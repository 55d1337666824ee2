// The staging table of received spans (otlp_spans, migration 0009): spans are written as they
// arrive and read back per trace, so a trace's events can be derived from all its spans.
import { randomUUID } from 'node:crypto';
import { isGenAiSpan } from '../../ingest/otlp/genai-attributes.js';
import type { OtlpSpan } from '../../ingest/otlp/otlp-span.js';
import type { Storage } from '../../storage/gateway.js';

export interface TraceKey {
  project: string;
  traceId: string;
}

export class SpanStore {
  constructor(
    private readonly storage: Storage,
    /** Most spans read back per trace (the earliest-received are kept). */
    private readonly maxSpansPerTrace: number,
  ) {}

  async add(project: string, spans: readonly OtlpSpan[]): Promise<void> {
    const rows = spans.map((s) => ({ project, trace_id: s.traceId, span_id: s.spanId, span: JSON.stringify(staged(s)) }));
    // A token of its own: on the embedded engine the connection keeps the last insert's token as a
    // setting, and a second insert under the same token would be dropped as a duplicate.
    await this.storage.insert('otlp_spans', rows, `otlp:${randomUUID()}`);
  }

  /** All staged spans of the given traces of one project, by trace id. */
  async read(project: string, traceIds: readonly string[]): Promise<Map<string, OtlpSpan[]>> {
    const rows = await this.storage.query<{ trace_id: string; span: string }>(
      `SELECT trace_id, span FROM otlp_spans FINAL
       WHERE project = {project:String} AND trace_id IN {traceIds:Array(String)}
       ORDER BY trace_id, received_at, span_id
       LIMIT {max:UInt32} BY trace_id`,
      { project, traceIds, max: this.maxSpansPerTrace },
    );
    const out = new Map<string, OtlpSpan[]>();
    for (const r of rows) {
      let list = out.get(r.trace_id);
      if (!list) out.set(r.trace_id, (list = []));
      list.push(JSON.parse(r.span) as OtlpSpan);
    }
    return out;
  }
}

/** Attributes the mapping never reads that can be large (whole prompts, tool schemas): not
 * staged, so re-reading a long trace stays cheap. */
const UNUSED = ['gen_ai.input.messages', 'gen_ai.system_instructions', 'gen_ai.tool.definitions', 'gen_ai.prompt'];

/** A span as staged: a GenAI span with what the mapping reads, else only what places it in its trace and
 * tells whether it failed (it may be the run span of a trace without invoke_agent). */
function staged(s: OtlpSpan): OtlpSpan {
  // Of span events only `exception` is read (legacy prompt/completion events can be large).
  const events = s.events.filter((e) => e.name === 'exception');
  if (isGenAiSpan(s)) {
    const attributes = { ...s.attributes };
    for (const k of UNUSED) delete attributes[k];
    return { ...s, attributes, events };
  }
  const errorType = s.attributes['error.type'];
  return { ...s, attributes: errorType !== undefined ? { 'error.type': errorType } : {}, events };
}
