import { useEffect, useId, useState } from 'react';
import './results.css';

export interface SpecEditorProps {
  /** The spec drawn now (no data). */
  spec: Record<string, unknown> | null;
  /** A valid spec object to draw instead. */
  onApply: (spec: Record<string, unknown>) => void;
  /** Back to the chart built for the chosen kind. */
  onReset?: () => void;
}

/**
 * The chart's Vega-Lite spec as JSON text to edit: Apply draws it (data is put in by the page, so
 * the spec needs none); text that is not a JSON object is refused beside the field.
 */
export function SpecEditor({ spec, onApply, onReset }: SpecEditorProps) {
  const id = useId();
  const shown = spec ? JSON.stringify(spec, null, 2) : '';
  const [text, setText] = useState(shown);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    setText(shown);
    setProblem(null);
  }, [shown]);
  const apply = () => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      setProblem(`Not JSON: ${(e as Error).message}`);
      return;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      setProblem('A Vega-Lite spec is a JSON object.');
      return;
    }
    if (
      !('mark' in value) &&
      !('layer' in value) &&
      !('concat' in value) &&
      !('hconcat' in value) &&
      !('vconcat' in value) &&
      !('facet' in value) &&
      !('repeat' in value)
    ) {
      setProblem('A Vega-Lite spec needs a mark (or layer, concat, facet, repeat).');
      return;
    }
    setProblem(null);
    onApply(value as Record<string, unknown>);
  };
  return (
    <div className="rs-spec-editor field">
      <label htmlFor={id}>Vega-Lite spec</label>
      <textarea
        id={id}
        className="rs-code-input"
        spellCheck={false}
        value={text}
        rows={16}
        aria-invalid={problem !== null}
        aria-describedby={problem ? `${id}-problem` : undefined}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            apply();
          }
        }}
      />
      {problem && (
        <p id={`${id}-problem`} className="field-error">
          {problem}
        </p>
      )}
      <div className="rs-spec-actions">
        <button type="button" className="button button-primary" onClick={apply}>
          Apply
        </button>
        {onReset && (
          <button type="button" className="button button-secondary" onClick={onReset}>
            Reset to the chosen chart
          </button>
        )}
        <span className="muted rs-hint">Ctrl+Enter applies. The rows are put in as the data.</span>
      </div>
    </div>
  );
}
