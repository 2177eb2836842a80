import { yaml } from '@codemirror/lang-yaml';
import { type Diagnostic, linter, lintGutter } from '@codemirror/lint';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';

/** A problem of the text being edited, at a line (1-based) or of the whole file (null). */
export interface LineProblem {
  line: number | null;
  message: string;
}

/**
 * A YAML editor (CodeMirror 6): syntax highlighting, and the problems `validate` finds shown inline
 * as the user types (debounced by the linter's delay), each under its line and in the gutter.
 * The editor owns its text while mounted; `onChange` reports every edit.
 */
export function YamlEditor({
  value,
  onChange,
  validate,
  label,
}: {
  value: string;
  onChange: (text: string) => void;
  validate: (text: string) => Promise<LineProblem[]>;
  label: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef({ onChange, validate });
  latest.current = { onChange, validate };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the view is made once per mount; `value` seeds it
  useEffect(() => {
    if (!host.current) return;
    const lint = linter(
      async (v): Promise<Diagnostic[]> => {
        const text = v.state.doc.toString();
        const problems = await latest.current.validate(text).catch(() => []);
        if (v.state.doc.toString() !== text) return [];
        return problems.map((p) => {
          const line = v.state.doc.line(Math.min(Math.max(p.line ?? 1, 1), v.state.doc.lines));
          return { from: line.from, to: Math.max(line.to, line.from), severity: 'error', message: p.message };
        });
      },
      { delay: 400 },
    );
    view.current = new EditorView({
      parent: host.current,
      doc: value,
      extensions: [
        basicSetup,
        yaml(),
        lint,
        lintGutter(),
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) latest.current.onChange(u.state.doc.toString());
        }),
      ],
    });
    return () => {
      view.current?.destroy();
      view.current = null;
    };
  }, []);

  return <div className="yaml-editor" ref={host} />;
}
