import type { DashboardDraft, Grain } from '@tessera/dashboard';
import { type FormEvent, useId, useState } from 'react';
import { grainChoices } from '../view-state.ts';
import { type DraftTimeGrain, draftTimeGrains } from './draft-model.ts';

/** Members look like `cube.member` (the model's names). */
const memberPattern = /^[A-Za-z_][\w]*\.[A-Za-z_][\w.]*$/;
const capitalise = (g: string) => g.charAt(0).toUpperCase() + g.slice(1);

/**
 * The dashboard's time-grain switchers (settings.timeGrains, packages/dashboard settings.ts): until
 * the editor sets one, the viewer offers a switcher on every time dimension its reports group by;
 * once set, exactly these, each bound to a time dimension with the grains it offers and the one it
 * starts at.
 */
export function GrainPanel(props: {
  draft: DashboardDraft;
  /** Time dimensions the draft's reports group by: offered first. */
  suggestions: string[];
  onChange: (switchers: DraftTimeGrain[] | null) => void;
}) {
  const switchers = draftTimeGrains(props.draft);
  const list = switchers ?? [];
  const id = useId();
  const [member, setMember] = useState('');
  const [offered, setOffered] = useState<Grain[]>([...grainChoices]);
  const [start, setStart] = useState('');
  const [problems, setProblems] = useState<{ member?: string; grains?: string }>({});
  const add = (e: FormEvent) => {
    e.preventDefault();
    const m = member.trim();
    const found: typeof problems = {};
    if (!memberPattern.test(m)) found.member = 'Name a time dimension as cube.member, e.g. orders.created_at';
    else if (list.some((s) => s.member === m)) found.member = 'This time dimension has a switcher already';
    if (offered.length === 0) found.grains = 'Offer at least one grain';
    setProblems(found);
    if (found.member || found.grains) return;
    const grains = grainChoices.filter((g) => offered.includes(g));
    const defaultGrain = grains.find((g) => g === start);
    props.onChange([...list, { member: m, grains, ...(defaultGrain ? { defaultGrain } : {}) }]);
    setMember('');
    setStart('');
    setOffered([...grainChoices]);
  };
  const update = (m: string, next: DraftTimeGrain) =>
    props.onChange(list.map((s) => (s.member === m ? next : s)));
  return (
    <section className="tsr-edit-panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Time-grain switchers</h2>
      {switchers === null ? (
        <p className="tsr-edit-muted">
          Automatic: viewers get a switcher on every time dimension the reports group by. Add one to choose
          which.
        </p>
      ) : list.length === 0 ? (
        <p className="tsr-edit-muted">No time-grain switchers: viewers see each report’s own grain.</p>
      ) : null}
      <ul className="tsr-edit-list">
        {list.map((s) => (
          <li key={s.member} data-grain-switcher={s.member} className="tsr-edit-grain">
            <span className="tsr-edit-row">
              <code>{s.member}</code>
              <button
                type="button"
                className="tsr-edit-remove"
                aria-label={`Remove the time-grain switcher on ${s.member}`}
                onClick={() => props.onChange(list.filter((x) => x.member !== s.member))}
              >
                ×
              </button>
            </span>
            <GrainChecks
              legend={`Grains offered on ${s.member}`}
              value={s.grains}
              onChange={(grains) =>
                update(s.member, {
                  member: s.member,
                  grains,
                  ...(s.defaultGrain && grains.includes(s.defaultGrain)
                    ? { defaultGrain: s.defaultGrain }
                    : {}),
                })
              }
              keepOne
            />
            <StartSelect
              label={`Starts at (${s.member})`}
              grains={s.grains}
              value={s.defaultGrain ?? ''}
              onChange={(g) =>
                update(s.member, { member: s.member, grains: s.grains, ...(g ? { defaultGrain: g } : {}) })
              }
            />
          </li>
        ))}
      </ul>
      <form onSubmit={add} noValidate className="tsr-edit-form" aria-label="Add a time-grain switcher">
        <label htmlFor={`${id}-m`}>Time dimension</label>
        <input
          id={`${id}-m`}
          list={`${id}-list`}
          value={member}
          onChange={(e) => setMember(e.target.value)}
          placeholder="orders.created_at"
          aria-invalid={problems.member !== undefined}
          aria-describedby={problems.member ? `${id}-pm` : undefined}
        />
        <datalist id={`${id}-list`}>
          {props.suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
        {problems.member ? (
          <p id={`${id}-pm`} className="field-error">
            {problems.member}
          </p>
        ) : null}
        <GrainChecks
          legend="Grains offered"
          value={offered}
          onChange={setOffered}
          problem={problems.grains}
        />
        <StartSelect label="Starts at" grains={offered} value={start} onChange={setStart} />
        <button type="submit" className="button">
          Add switcher
        </button>
      </form>
      {switchers !== null ? (
        <button type="button" className="button" onClick={() => props.onChange(null)}>
          Back to automatic switchers
        </button>
      ) : null}
    </section>
  );
}

function GrainChecks(props: {
  legend: string;
  value: readonly Grain[];
  onChange: (grains: Grain[]) => void;
  problem?: string;
  /** Never uncheck the last grain (a switcher offers at least one). */
  keepOne?: boolean;
}) {
  const id = useId();
  return (
    <fieldset
      className="tsr-edit-grains"
      aria-invalid={props.problem !== undefined}
      aria-describedby={props.problem ? `${id}-p` : undefined}
    >
      <legend>{props.legend}</legend>
      {grainChoices.map((g) => {
        const on = props.value.includes(g);
        return (
          <label key={g}>
            <input
              type="checkbox"
              checked={on}
              disabled={props.keepOne && on && props.value.length === 1}
              onChange={(e) =>
                props.onChange(
                  grainChoices.filter((x) => (x === g ? e.target.checked : props.value.includes(x))),
                )
              }
            />{' '}
            {capitalise(g)}
          </label>
        );
      })}
      {props.problem ? (
        <p id={`${id}-p`} className="field-error">
          {props.problem}
        </p>
      ) : null}
    </fieldset>
  );
}

function StartSelect(props: {
  label: string;
  grains: readonly Grain[];
  value: string;
  onChange: (grain: Grain | '') => void;
}) {
  const id = useId();
  return (
    <>
      <label htmlFor={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onChange(e.target.value as Grain | '')}>
        <option value="">Each report’s own grain</option>
        {props.grains.map((g) => (
          <option key={g} value={g}>
            {capitalise(g)}
          </option>
        ))}
      </select>
    </>
  );
}
