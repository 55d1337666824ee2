// The argument that tells one call of a tool from another: the file an editor opens, the command
// a shell runs, the query a search sends. Shown on a step's compact line and used to split a
// tool into nodes of the run graph (`edit` of a.py and `edit` of b.py are different places).
import { parseArguments } from './file-writes.js';

/** Argument names that, in this order, name what a call works on. */
export const KEY_NAMES = ['path', 'file_path', 'filepath', 'filename', 'file', 'command', 'cmd', 'query', 'q', 'url', 'pattern', 'code', 'input'];
/** A key argument longer than this is cut (with an ellipsis): it labels, it does not show. */
export const KEY_ARGUMENT_MAX = 120;

/**
 * The key argument of a tool call, as one line of at most KEY_ARGUMENT_MAX characters; '' when
 * the call has no string argument. `args` is the stored arguments (JSON text, or any text).
 */
export function keyArgument(args: unknown): string {
  const value = parseArguments(args);
  if (typeof value === 'string') return oneLine(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return '';
  const rec = value as Record<string, unknown>;
  const lower = new Map(Object.keys(rec).map((k) => [k.toLowerCase(), k]));
  for (const name of KEY_NAMES) {
    const key = lower.get(name);
    const v = key === undefined ? undefined : rec[key];
    if (typeof v === 'string' && v.trim() !== '') return oneLine(v);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string') && v.length > 0) return oneLine(v.join(' '));
  }
  // Else the first short string argument.
  for (const v of Object.values(rec)) {
    if (typeof v === 'string' && v.trim() !== '' && v.length <= 200) return oneLine(v);
  }
  return '';
}

function oneLine(text: string): string {
  const line = text.trim().split('\n', 1)[0].replace(/\s+/g, ' ');
  const cut = line.length > KEY_ARGUMENT_MAX ? `${line.slice(0, KEY_ARGUMENT_MAX - 1)}…` : line;
  return text.trim().includes('\n') && cut === line ? `${line} …` : cut;
}
