import type { DashboardDraft } from '@tessera/dashboard';
import { useId, useState } from 'react';
import { cssColorToHex } from './css-color.ts';
import { type ThemeField, themeFields, themeProblem, themeValue } from './theme-model.ts';

const groups = [...new Set(themeFields.map((f) => f.group))];

/**
 * The theme of spec 2.2, edited with a live preview: a valid value goes into the draft at once
 * (the grid beside re-renders with it, and it is an undo step); an invalid one stays in its field
 * with the reason beside it and changes nothing, until corrected or emptied.
 */
export function ThemePanel(props: {
  draft: DashboardDraft;
  onChange: (path: string, value: string) => void;
}) {
  const id = useId();
  // What the user typed that cannot be used, by path: shown instead of the draft's value.
  const [invalid, setInvalid] = useState<Record<string, string>>({});
  const change = (field: ThemeField, value: string) => {
    if (themeProblem(field, value)) {
      setInvalid((i) => ({ ...i, [field.path]: value }));
      return;
    }
    setInvalid(({ [field.path]: _fixed, ...rest }) => rest);
    props.onChange(field.path, value.trim());
  };
  return (
    <section className="tsr-edit-panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Theme</h2>
      <p className="tsr-edit-muted">Changes show on the grid as you type. Empty: the default.</p>
      {groups.map((group) => (
        <details key={group} className="tsr-edit-theme-group" open={group === 'General'}>
          <summary>{group}</summary>
          {themeFields
            .filter((f) => f.group === group)
            .map((f) => {
              const typed = invalid[f.path];
              const value = typed ?? themeValue(props.draft.theme, f.path);
              const problem = typed !== undefined ? themeProblem(f, typed) : null;
              const fieldId = `${id}-${f.path.replaceAll('.', '-')}`;
              return (
                <div key={f.path} className="tsr-edit-theme-field" data-theme-path={f.path}>
                  <label htmlFor={fieldId}>
                    {f.label}
                    {f.css?.includes('color') && value && !problem ? (
                      <span className="tsr-edit-swatch" style={{ background: value }} aria-hidden="true" />
                    ) : null}
                  </label>
                  <div className="tsr-edit-theme-input">
                    <input
                      id={fieldId}
                      value={value}
                      onChange={(e) => change(f, e.target.value)}
                      aria-invalid={problem !== null}
                      aria-describedby={problem ? `${fieldId}-p` : undefined}
                    />
                    {f.css?.includes('color') ? (
                      // The text field stays the source of truth (it takes any CSS colour, a
                      // var() too); the picker offers the palette and writes #rrggbb into it.
                      <input
                        type="color"
                        className="tsr-edit-color-picker"
                        aria-label={`${f.label}: pick from a palette`}
                        value={(problem ? null : cssColorToHex(value)) ?? '#000000'}
                        onChange={(e) => change(f, e.target.value)}
                      />
                    ) : null}
                  </div>
                  {problem ? (
                    <p id={`${fieldId}-p`} className="field-error">
                      {problem}
                    </p>
                  ) : null}
                </div>
              );
            })}
        </details>
      ))}
    </section>
  );
}
