// Long agent text (observations, tool output) starts collapsed with a "show all" toggle. Images
// and other binary data sent as base64 are shown as what they are (text-kind.ts): a preview of an
// image, type and size, and a download; never their base64 characters.
import { useMemo, useState } from 'react';
import { isLongText, lineCount, previewText } from '../lib/text.js';
import { formatBytes, textKind, type TextKind } from '../lib/text-kind.js';

/** Texts longer than this get a download beside "show all". */
const DOWNLOAD_FROM_CHARS = 20_000;

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
  const kind = useMemo(() => textKind(text), [text]);
  if (kind.kind !== 'text') return <DataBlock data={kind} truncated={truncated} className={className} />;
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
          {text.length > DOWNLOAD_FROM_CHARS && (
            <button type="button" className="link-btn" onClick={() => download(new Blob([text], { type: 'text/plain' }), 'output.txt')}>
              Download
            </button>
          )}
          {truncated && <span className="muted small">truncated at ingest</span>}
        </div>
      )}
    </div>
  );
}

function DataBlock({ data, truncated, className }: { data: Exclude<TextKind, { kind: 'text' }>; truncated: boolean; className: string }) {
  const [broken, setBroken] = useState(false);
  const ext = data.mime.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin';
  return (
    <div className={`text-block data-block ${className}`} data-testid="data-block" data-mime={data.mime}>
      {data.kind === 'image' && !broken && (
        <img src={`data:${data.mime};base64,${data.base64}`} alt={`${data.label} from the agent`} className="data-preview" onError={() => setBroken(true)} />
      )}
      <div className="text-block-foot">
        <span className="data-label">
          {data.label} · {formatBytes(data.bytes)}
          {broken && ' · cannot be drawn (incomplete?)'}
        </span>
        <button type="button" className="link-btn" onClick={() => download(base64Blob(data.base64, data.mime), `output.${ext}`)}>
          Download
        </button>
        {truncated && <span className="muted small">truncated at ingest</span>}
      </div>
    </div>
  );
}

/** The bytes of base64 text (of its longest decodable start, when it was cut). */
function base64Blob(base64: string, mime: string): Blob {
  let raw = '';
  try {
    raw = atob(base64);
  } catch {
    const clean = base64.replace(/=+$/, '');
    try {
      raw = atob(clean.slice(0, clean.length - (clean.length % 4)));
    } catch {
      raw = '';
    }
  }
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return new Blob([bytes], { type: mime });
}

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
