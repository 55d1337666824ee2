// One tool call: tool, status, duration, pretty-printed arguments, output or error. Parts that
// only repeat its step's action, observation or error (`overlap`) are left out and named instead,
// so a step card shows each text once.
import type { ToolCallRow } from '../../../schemas/api.js';
import { ExpandableText } from '../components/expandable-text.js';
import { prettyJson } from '../lib/chart-data.js';
import { NO_OVERLAP, type CallOverlap } from '../lib/compact-rows.js';
import { formatDuration } from '../lib/format.js';
import { SubagentLink } from './run-subagents.js';

export function ToolCallView({ call, overlap = NO_OVERLAP }: { call: ToolCallRow; overlap?: CallOverlap }) {
  const args = prettyJson(call.arguments);
  const hasArgs = Boolean(args) && args !== '{}';
  const hasError = Boolean(call.error_type || call.error_message);
  const same = [hasArgs && overlap.args ? 'arguments as the action' : '', call.output && overlap.output ? 'output as the observation' : ''].filter(Boolean);
  return (
    <div className={`tool-call tool-call-${call.status}`} data-call-id={call.call_id}>
      <div className="tool-call-head">
        <span className="tool-name mono">{call.tool || '(unnamed tool)'}</span>
        <span className={`badge ${call.status === 'ok' ? 'badge-success' : 'badge-failure'}`}>{call.status}</span>
        <span className="muted small">{formatDuration(call.duration_ms)}</span>
        <span className="muted small mono call-id">{call.call_id}</span>
        <SubagentLink callId={call.call_id} />
        {same.length > 0 && (
          <span className="muted small call-same" data-testid="call-same">
            {same.join(', ')} above
          </span>
        )}
      </div>
      {hasArgs && !overlap.args && (
        <div className="tool-part">
          <div className="part-label">arguments</div>
          <ExpandableText text={args} maxLines={12} className="code" />
        </div>
      )}
      {hasError && (
        <div className="tool-part">
          <div className="part-label">error</div>
          <div className="error-line error-text">
            <strong>{call.error_type || 'error'}</strong>
            {call.error_message && (overlap.error ? <span className="muted">: message as the step's error</span> : <>: {call.error_message}</>)}
          </div>
        </div>
      )}
      {call.output && !overlap.output && (
        <div className="tool-part">
          <div className="part-label">output</div>
          <ExpandableText text={call.output} truncated={call.truncated} />
        </div>
      )}
    </div>
  );
}
