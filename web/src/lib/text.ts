// Text helpers for long agent output. Pure.

/** True when text should start collapsed: more than `maxLines` lines or `maxChars` characters. */
export function isLongText(text: string, maxLines = 8, maxChars = 800): boolean {
  if (text.length > maxChars) return true;
  let lines = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10 && ++lines > maxLines) return true;
  return false;
}

/** The collapsed preview of long text: the first `maxLines` lines, at most `maxChars` characters. */
export function previewText(text: string, maxLines = 8, maxChars = 800): string {
  let end = Math.min(text.length, maxChars);
  let lines = 1;
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10 && ++lines > maxLines) {
      end = i;
      break;
    }
  }
  return text.slice(0, end);
}

/** Line count of a text, for "show all 240 lines". */
export function lineCount(text: string): number {
  if (!text) return 0;
  let n = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}
