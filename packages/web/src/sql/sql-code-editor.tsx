import { autocompletion, completionStatus, startCompletion } from '@codemirror/autocomplete';
import { PostgreSQL, sql } from '@codemirror/lang-sql';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';
import type { Catalogue } from './catalogue.ts';
import { memberCompletionSource, sqlSchema } from './completion.ts';

export interface SqlCodeEditorProps {
  /** The text the editor starts with, and any text set from outside later (a history entry). */
  value: string;
  onChange: (value: string) => void;
  /** Ctrl+Enter (Cmd+Enter on a Mac). */
  onRun: () => void;
  catalogue: Catalogue | null;
  /** The id of the text that describes the editor (its keys), for `aria-describedby`. */
  describedBy?: string;
}

/**
 * CodeMirror 6 as a controlled-enough React component: PostgreSQL highlighting, completion of
 * the model's tables and members (completion.ts), Ctrl+Enter to run. Tab is left to the page
 * (no indent-with-Tab), so that the keyboard can leave the editor; Enter accepts a completion.
 */
export function SqlCodeEditor({ value, onChange, onRun, catalogue, describedBy }: SqlCodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const language = useRef(new Compartment());
  // The latest callbacks and catalogue, read by extensions made once.
  const latest = useRef({ onChange, onRun, catalogue });
  latest.current = { onChange, onRun, catalogue };

  // The editor is made once, with the first text; later values are applied by the effect below.
  // biome-ignore lint/correctness/useExhaustiveDependencies: made once, see above
  useEffect(() => {
    if (!host.current) return;
    const run = () => {
      latest.current.onRun();
      return true;
    };
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          Prec.highest(keymap.of([{ key: 'Mod-Enter', run }])),
          basicSetup,
          language.current.of(sql({ dialect: PostgreSQL, upperCaseKeywords: true })),
          autocompletion({ icons: true, activateOnTypingDelay: 50 }),
          placeholder('SELECT status, MEASURE(count) FROM orders GROUP BY 1'),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({
            'aria-label': 'SQL query',
            ...(describedBy ? { 'aria-describedby': describedBy } : {}),
          }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, []);

  // The model arrived (or changed): completion learns its tables and members.
  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const schema = catalogue ? sqlSchema(catalogue) : undefined;
    editor.dispatch({
      effects: language.current.reconfigure([
        sql({ dialect: PostgreSQL, upperCaseKeywords: true, ...(schema ? { schema } : {}) }),
        PostgreSQL.language.data.of({ autocomplete: memberCompletionSource(() => latest.current.catalogue) }),
      ]),
    });
    // A completion already open when the model arrived is asked again, with the members.
    if (catalogue && completionStatus(editor.state) !== null) startCompletion(editor);
  }, [catalogue]);

  // A value set from outside (a history entry loaded) replaces the text.
  useEffect(() => {
    const editor = view.current;
    if (!editor || editor.state.doc.toString() === value) return;
    editor.dispatch({
      changes: { from: 0, to: editor.state.doc.length, insert: value },
      selection: { anchor: value.length },
    });
  }, [value]);

  return <div ref={host} className="sq-editor" />;
}
