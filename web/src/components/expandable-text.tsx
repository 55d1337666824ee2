// Long agent text (observations, tool output) starts collapsed with a "show all" toggle.
import { useState } from 'react';
import { isLongText, lineCount, previewText } from '../lib/text.js';

export function ExpandableText({
  text,
  maxLines = 8,
  className = '',
  truncated = false,
}: {
  text: string;
  maxLines?: number;
  className?: string;
  /** The server cut this text at ingest; say so. */
  truncated?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const long = isLongText(text, maxLines);
  const shown = open || !long ? text : previewText(text, maxLines);
  return (
    <div className={`text-block ${className}`}>
      <pre className={long && !open ? 'faded' : undefined}>{shown}</pre>
      {(long || truncated) && (
        <div className="text-block-foot">
          {long && (
            <button type="button" className="link-btn" onClick={() => setOpen((o) => !o)}>
              {open ? 'Show less' : `Show all (${lineCount(text).toLocaleString('en-US')} lines, ${text.length.toLocaleString('en-US')} chars)`}
            </button>
          )}
          {truncated && <span className="muted small">truncated at ingest</span>}
        </div>
      )}
    </div>
  );
}
