// The SQL editor of the console: CodeMirror 6 with ClickHouse highlighting, completion of
// keywords, functions, tables and columns (from the schema browser's data), Ctrl/Cmd+Enter to
// run, and a mark where the last error points.
import { useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import { autocompletion, closeBrackets, closeBracketsKeymap, closeCompletion, completionKeymap, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { sql, type SQLNamespace } from '@codemirror/lang-sql';
import { Compartment, EditorState, Prec, StateEffect, StateField } from '@codemirror/state';
import {
  Decoration,
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  placeholder,
  type DecorationSet,
} from '@codemirror/view';
import type { SqlSchemaTable } from '../../../schemas/api.js';
import { columnsInScope, completionSchema } from '../lib/sql-schema.js';
import { ClickHouseSQL, keywordCompletion } from './clickhouse-dialect.js';

export interface SqlEditorHandle {
  /** Replaces the selection with `text` (inserts at the cursor) and focuses the editor. */
  insert(text: string): void;
  focus(): void;
}

interface Props {
  value: string;
  onChange: (sql: string) => void;
  onRun: () => void;
  tables: readonly SqlSchemaTable[];
  /** Offset of the character the last error points at, or null. */
  errorAt: number | null;
  ref?: Ref<SqlEditorHandle>;
}

const setErrorMark = StateEffect.define<number | null>();

/** The error mark: the word at the error position (or one character), cleared on any edit. */
const errorMarkField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    let out = tr.docChanged ? Decoration.none : marks;
    for (const e of tr.effects) {
      if (!e.is(setErrorMark)) continue;
      out = Decoration.none;
      if (e.value === null) continue;
      const doc = tr.state.doc;
      const from = Math.min(e.value, doc.length);
      const word = tr.state.wordAt(from);
      const to = word && word.from === from ? word.to : Math.min(from + 1, doc.length);
      if (to > from) out = Decoration.set([Decoration.mark({ class: 'cm-sql-error', attributes: { title: 'the error points here' } }).range(from, to)]);
      else if (from > 0) out = Decoration.set([Decoration.mark({ class: 'cm-sql-error' }).range(from - 1, from)]);
    }
    return out;
  },
  provide: (f) => EditorView.decorations.from(f),
});

const theme = EditorView.theme({
  '&': { fontSize: '13px', backgroundColor: 'var(--c-surface)', minHeight: '150px', maxHeight: '420px' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.55', overflow: 'auto' },
  '.cm-content': { padding: '8px 0' },
  '.cm-gutters': { backgroundColor: 'var(--c-surface-2)', color: 'var(--c-faint)', borderRight: '1px solid var(--c-border)' },
  '.cm-activeLine': { backgroundColor: '#f5f8fd' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--c-accent-soft)' },
  '.cm-sql-error': { textDecoration: 'underline wavy var(--c-failure)', backgroundColor: 'var(--c-failure-soft)' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul': { fontFamily: 'var(--mono)', fontSize: '12.5px', maxHeight: '16em' },
  '.cm-completionDetail': { color: 'var(--c-muted)', fontStyle: 'normal', marginLeft: '0.8em' },
  '.cm-tooltip-autocomplete ul li[aria-selected] .cm-completionDetail': { color: 'rgba(255, 255, 255, 0.85)' },
  '.cm-tooltip.cm-completionInfo': { maxWidth: '320px', fontSize: '12px', padding: '4px 8px' },
  '.cm-gutter, .cm-content': { minHeight: '150px' },
  '.cm-placeholder': { color: 'var(--c-faint)' },
});

function languageFor(tables: readonly SqlSchemaTable[]) {
  const schema = completionSchema(tables) as unknown as SQLNamespace;
  const support = sql({ dialect: ClickHouseSQL, schema, upperCaseKeywords: true, keywordCompletion });
  // Bare column names of the tables the query reads (lang-sql completes them only after `table.`).
  const columns = ClickHouseSQL.language.data.of({
    autocomplete: (ctx: CompletionContext): CompletionResult | null => {
      const word = ctx.matchBefore(/\w+/);
      if (!word && !ctx.explicit) return null;
      const before = ctx.state.sliceDoc(Math.max(0, (word?.from ?? ctx.pos) - 1), word?.from ?? ctx.pos);
      if (before === '.') return null;
      const options = columnsInScope(ctx.state.doc.toString(), tables);
      if (options.length === 0) return null;
      return { from: word?.from ?? ctx.pos, options, validFor: /^\w*$/ };
    },
  });
  return [support, columns];
}

export function SqlEditor({ value, onChange, onRun, tables, errorAt, ref }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const language = useRef(new Compartment());
  const callbacks = useRef({ onChange, onRun });
  callbacks.current = { onChange, onRun };

  useEffect(() => {
    if (!host.current) return;
    const v = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          drawSelection(),
          history(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          autocompletion({ activateOnTyping: true, icons: false }),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          placeholder('SELECT … (Ctrl+Enter runs the query)'),
          Prec.highest(
            keymap.of([
              {
                key: 'Mod-Enter',
                preventDefault: true,
                run: (v) => {
                  closeCompletion(v);
                  callbacks.current.onRun();
                  return true;
                },
              },
            ]),
          ),
          keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap, indentWithTab]),
          language.current.of(languageFor([])),
          errorMarkField,
          theme,
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': 'SQL query', 'data-testid': 'sql-editor' }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) callbacks.current.onChange(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
    // The editor is created once; later values arrive through the effects below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    view.current?.dispatch({ effects: language.current.reconfigure(languageFor(tables)) });
  }, [tables]);

  // A value from outside (an example, a saved query, the URL) replaces the text.
  useEffect(() => {
    const v = view.current;
    if (!v || v.state.doc.toString() === value) return;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value }, selection: { anchor: value.length } });
  }, [value]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    v.dispatch({
      effects: [setErrorMark.of(errorAt), ...(errorAt === null ? [] : [EditorView.scrollIntoView(Math.min(errorAt, v.state.doc.length), { y: 'center' })])],
    });
  }, [errorAt]);

  useImperativeHandle(ref, () => ({
    insert(text: string) {
      const v = view.current;
      if (!v) return;
      v.dispatch(v.state.replaceSelection(text));
      v.focus();
    },
    focus() {
      view.current?.focus();
    },
  }));

  return <div className="sql-editor" ref={host} />;
}
