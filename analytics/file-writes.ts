// Which paths an action writes, deletes or creates, as far as its text or tool-call arguments
// tell. Heuristic and pure: shell commands (rm, mv, cp, sed -i, tee, redirections, git rm/mv/
// checkout/restore, patch), editor tools (a tool whose name says edit/write/create/replace/
// delete…, unless its command is a read such as "view"), and SWE-agent commands (`create PATH`,
// `rm PATH`, and `edit` applied to the file last opened).
import { pathTokens } from './path-patterns.js';

export type WriteKind = 'edit' | 'delete' | 'create';

export interface FileWrite {
  path: string;
  kind: WriteKind;
}

const COMMAND_START = String.raw`(?:^|[;&|\n(\x60"'{:]\s*|\b(?:sudo|xargs|exec|then|do|nohup|time)\s+)`;
// The arguments of a command: up to a command separator, or a quote that closes a JSON field.
const ARGS = String.raw`((?:[^;&|\n"]|"(?![,}\]]))*)`;
const SHELL_WRITES: ReadonlyArray<readonly [RegExp, WriteKind, 'all' | 'last']> = [
  [new RegExp(`${COMMAND_START}(?:rm|unlink|shred|git\\s+rm)\\s+${ARGS}`, 'g'), 'delete', 'all'],
  [new RegExp(`${COMMAND_START}(?:mv|git\\s+mv)\\s+${ARGS}`, 'g'), 'delete', 'all'],
  [new RegExp(`${COMMAND_START}(?:cp|install)\\s+${ARGS}`, 'g'), 'edit', 'last'],
  [new RegExp(`${COMMAND_START}(?:sed|perl)\\s+(?:-\\S+\\s+)*?-\\w*i\\S*\\s+${ARGS}`, 'g'), 'edit', 'all'],
  [new RegExp(`${COMMAND_START}(?:tee|truncate|patch|git\\s+(?:checkout|restore|apply))\\s+${ARGS}`, 'g'), 'edit', 'all'],
  [new RegExp(`${COMMAND_START}(?:touch)\\s+${ARGS}`, 'g'), 'create', 'all'],
  // redirection into a file: > path, >> path (not 2>&1)
  [/(?:^|[^<>&\-=\d])\d?>>?\s*([^\s;&|<>"'`)]+)/g, 'edit', 'all'],
];

/** Writes of a shell command text (or of text that embeds one). */
export function shellWrites(text: string): FileWrite[] {
  const out: FileWrite[] = [];
  for (const [pattern, kind, which] of SHELL_WRITES) {
    pattern.lastIndex = 0;
    for (const m of text.matchAll(pattern)) {
      const args = pathTokens(m[1]).filter((t) => !t.startsWith('-') && t !== '&1');
      const targets = which === 'last' ? args.slice(-1) : args;
      for (const path of targets) out.push({ path, kind });
    }
  }
  return out;
}

const WRITE_TOOL = /edit|write|creat|replace|patch|insert|delet|remov|move|renam|apply|save|overwrite|append/i;
const DELETE_TOOL = /delet|remov|\brm\b|unlink/i;
const READ_COMMANDS = new Set(['view', 'read', 'open', 'list', 'ls', 'cat', 'show', 'get', 'search', 'find', 'grep', 'stat']);
const PATH_KEYS = /path|file|target|dest|source|src|dir|folder/i;

/** Writes of one tool call. `args` is the parsed arguments value (or a text). */
export function toolCallWrites(tool: string, args: unknown): FileWrite[] {
  const strings = stringValues(args);
  const out: FileWrite[] = [];
  if (WRITE_TOOL.test(tool) || DELETE_TOOL.test(tool)) {
    const command = commandOf(args);
    if (!command || !READ_COMMANDS.has(command)) {
      const kind: WriteKind = DELETE_TOOL.test(tool) || DELETE_TOOL.test(command) ? 'delete' : command === 'create' ? 'create' : 'edit';
      const keyed = strings.filter(([key]) => PATH_KEYS.test(key));
      for (const [, value] of keyed.length > 0 ? keyed : strings) {
        for (const path of pathTokens(value)) out.push({ path, kind });
      }
    }
  }
  for (const [, value] of strings) out.push(...shellWrites(value));
  return out;
}

function commandOf(args: unknown): string {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return '';
  const rec = args as Record<string, unknown>;
  for (const key of ['command', 'action', 'mode', 'operation', 'op']) {
    if (typeof rec[key] === 'string') return (rec[key] as string).trim().toLowerCase();
  }
  return '';
}

/** [key, value] of every string inside a value (the key of its nearest object field). */
/** Every string in a value, with the key it is under (an array's items under the array's key). */
export function stringValues(value: unknown, key = ''): Array<[string, string]> {
  if (typeof value === 'string') return [[key, value]];
  if (Array.isArray(value)) return value.flatMap((v) => stringValues(v, key));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => stringValues(v, k));
  }
  return [];
}

/**
 * Reads SWE-agent style editor commands across the steps of a run: `open PATH` and `create PATH`
 * set the current file, `edit …` writes it, `create PATH` creates PATH.
 */
export class EditorSession {
  private current = '';

  writes(actionText: string): FileWrite[] {
    const text = actionText.trim();
    const open = /^(open|create)\s+"?([^\s"]+)"?/.exec(text);
    if (open) {
      this.current = open[2];
      return open[1] === 'create' ? [{ path: open[2], kind: 'create' }] : [];
    }
    if (/^(edit|insert|append)\b/.test(text) && this.current) return [{ path: this.current, kind: 'edit' }];
    return [];
  }
}

/** Tool-call arguments as a value: JSON text parsed, anything else (or text that is not JSON) as it is. */
export function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}
