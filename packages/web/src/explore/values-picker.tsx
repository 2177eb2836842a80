import { useId, useState } from 'react';
import { parseValues } from './filters.ts';

export interface ValuesPickerProps {
  /** The values chosen so far, each shown as a removable chip. */
  values: readonly string[];
  /** The member's values (from the data API, under the viewer's security context), offered as the user types. */
  suggestions: readonly string[];
  onChange: (values: string[]) => void;
  /** The text box's accessible name. */
  label: string;
  numeric?: boolean;
}

/**
 * A filter's values: the chosen ones as chips, and a text box that offers the member's own values
 * (a datalist: the browser's own suggestion list, by keyboard and touch alike). Enter adds what is
 * typed, commas separating several; choosing a suggestion adds it at once; Backspace in the empty
 * box removes the last chip. Values the list does not hold can still be typed (numbers, or values
 * beyond the list's first 200).
 */
export function ValuesPicker({ values, suggestions, onChange, label, numeric }: ValuesPickerProps) {
  const [text, setText] = useState('');
  const listId = useId();
  const offered = suggestions.filter((s) => !values.includes(s));
  const add = (raw: string) => {
    const added = parseValues(raw).filter((v) => !values.includes(v));
    if (added.length > 0) onChange([...values, ...added]);
    setText('');
  };
  return (
    <span className="ex-values-picker">
      {values.map((v) => (
        <span key={v} className="ex-value-chip">
          {v}
          <button
            type="button"
            className="ex-value-remove"
            aria-label={`Remove the value ${v}`}
            onClick={() => onChange(values.filter((x) => x !== v))}
          >
            ×
          </button>
        </span>
      ))}
      <input
        aria-label={label}
        className="ex-values"
        list={offered.length > 0 ? listId : undefined}
        placeholder={numeric ? 'a number' : values.length > 0 ? 'add a value' : 'values, separated by commas'}
        inputMode={numeric ? 'decimal' : undefined}
        value={text}
        onChange={(e) => {
          const next = e.target.value;
          // A suggestion chosen from the list replaces the text whole (not typed key by key).
          const chosen = (e.nativeEvent as InputEvent).inputType !== 'insertText' && offered.includes(next);
          if (chosen) add(next);
          else setText(next);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            add(text);
          } else if (e.key === 'Backspace' && text === '' && values.length > 0) {
            onChange(values.slice(0, -1));
          }
        }}
        onBlur={() => text.trim() !== '' && add(text)}
      />
      {offered.length > 0 && (
        <datalist id={listId}>
          {offered.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      )}
    </span>
  );
}
