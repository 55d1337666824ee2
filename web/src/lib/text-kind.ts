// What an agent text is, before it is drawn: an image or other binary data sent as base64 (a
// data: URL, or bare base64 whose first bytes are a known file signature), or text. Images and
// binary data are shown as what they are (type, size, a preview, a download), never as their
// base64 characters. The type is told by the format's own signature (its magic bytes). Pure.

export type TextKind =
  | { kind: 'text' }
  | { kind: 'image'; mime: string; label: string; base64: string; bytes: number }
  | { kind: 'binary'; mime: string; label: string; base64: string; bytes: number };

/** Base64 this short is left as text (ids, hashes, short tokens). */
const MIN_BASE64 = 128;
const BASE64 = /^[A-Za-z0-9+/\r\n]+={0,2}\s*$/;
const DATA_URL = /^data:([a-z]+\/[-+.\w]+)(?:;[-\w]+=[-\w.]+)*;base64,/i;

/** File signatures: the first bytes of each format, and what it is. */
const SIGNATURES: ReadonlyArray<{ bytes: number[]; at?: number; also?: { at: number; bytes: number[] }; mime: string; label: string; image: boolean }> = [
  { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], mime: 'image/png', label: 'PNG image', image: true },
  { bytes: [0xff, 0xd8, 0xff], mime: 'image/jpeg', label: 'JPEG image', image: true },
  { bytes: [0x47, 0x49, 0x46, 0x38], mime: 'image/gif', label: 'GIF image', image: true },
  { bytes: [0x52, 0x49, 0x46, 0x46], also: { at: 8, bytes: [0x57, 0x45, 0x42, 0x50] }, mime: 'image/webp', label: 'WebP image', image: true },
  { bytes: [0x25, 0x50, 0x44, 0x46], mime: 'application/pdf', label: 'PDF document', image: false },
  { bytes: [0x1f, 0x8b], mime: 'application/gzip', label: 'gzip data', image: false },
  { bytes: [0x50, 0x4b, 0x03, 0x04], mime: 'application/zip', label: 'zip archive', image: false },
];
const IMAGE_MIMES = new Set(SIGNATURES.filter((s) => s.image).map((s) => s.mime));

/** The first bytes of base64 text (its first 64 characters decoded). */
function headBytes(base64: string): number[] {
  const head = base64.replace(/\s+/g, '').slice(0, 64);
  try {
    const raw = atob(head.slice(0, head.length - (head.length % 4)));
    return Array.from(raw, (c) => c.charCodeAt(0));
  } catch {
    return [];
  }
}

function signatureOf(bytes: number[]): (typeof SIGNATURES)[number] | undefined {
  const at = (offset: number, want: number[]) => want.every((b, i) => bytes[offset + i] === b);
  return SIGNATURES.find((s) => at(s.at ?? 0, s.bytes) && (!s.also || at(s.also.at, s.also.bytes)));
}

/** Bytes that base64 text of this many characters decodes to (about). */
function decodedBytes(base64: string): number {
  const clean = base64.replace(/\s+/g, '');
  return Math.floor((clean.length * 3) / 4) - (clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0);
}

export function textKind(text: string): TextKind {
  const trimmed = text.trim();
  const url = DATA_URL.exec(trimmed);
  if (url) {
    const base64 = trimmed.slice(url[0].length);
    const sig = signatureOf(headBytes(base64));
    const mime = sig?.mime ?? url[1].toLowerCase();
    const label = sig?.label ?? `${mime} data`;
    const bytes = decodedBytes(base64);
    // Only images the signature confirms are drawn (never an SVG or HTML given as image/*).
    return sig && IMAGE_MIMES.has(sig.mime) ? { kind: 'image', mime, label, base64, bytes } : { kind: 'binary', mime, label, base64, bytes };
  }
  if (trimmed.length < MIN_BASE64 || !BASE64.test(trimmed)) return { kind: 'text' };
  const sig = signatureOf(headBytes(trimmed));
  if (!sig) return { kind: 'text' };
  const bytes = decodedBytes(trimmed);
  return sig.image ? { kind: 'image', mime: sig.mime, label: sig.label, base64: trimmed.replace(/\s+/g, ''), bytes } : { kind: 'binary', mime: sig.mime, label: sig.label, base64: trimmed.replace(/\s+/g, ''), bytes };
}

/** "24.3 KB", "512 B", "1.2 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
