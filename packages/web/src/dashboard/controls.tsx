import { useGetDashboardDimensionValues } from '@tessera/client/react';
import { type ReactNode, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ControlDef } from './controls-model.ts';
import { memberLabel } from './model.ts';
import type { Grain } from './types.ts';
import { useAfterTiles } from './use-after-tiles.ts';
import { grainChoices, isEmptyState, stateFilters, type ViewState } from './view-state.ts';
import { errorText } from './widget-tile.tsx';

/** A select lists at most this many values; a dimension with more gets a text box. */
const maxListed = 500;

export interface ControlsProps {
  controls: ControlDef[];
  state: ViewState;
  onChange: (next: ViewState) => void;
  deploymentId: number;
  publicId: string;
  versionNumber: number;
}

/** One dimension's values as the dimension-values endpoint lists them. */
interface Listed {
  type: string;
  values: string[];
  complete: boolean;
  /** The dashboard filters this list is not narrowed by (no join between the members' cubes). */
  notApplied: string[];
}
type FilterKind = 'select' | 'text' | 'dateRange' | 'none';

/** The dashboard's filters and time grains; each change re-queries the widgets (spec 2.5 shapes). */
export function Controls({
  controls,
  state,
  onChange,
  deploymentId,
  publicId,
  versionNumber,
}: ControlsProps) {
  const members = useMemo(
    () => controls.filter((c) => c.kind === 'dimension').map((c) => c.member),
    [controls],
  );
  // Every dimension's values in one request per dashboard state (the server leaves out each
  // member's own filter, so that picking one value does not hide the others).
  const body = useMemo(
    () => ({ versionNumber, members, filters: stateFilters(state), limit: maxListed }),
    [versionNumber, members, state],
  );
  // Read once the tiles have their rows (use-after-tiles.ts says why); the lists on the page stay.
  const asked = useAfterTiles(body);
  const listed = useGetDashboardDimensionValues(
    { params: { path: { deploymentId, publicId } }, body: asked ?? body },
    {
      enabled: members.length > 0 && asked !== null,
      staleTime: 60_000,
      refetchOnWindowFocus: false,
      retry: false,
      placeholderData: (previous) => previous,
    },
  );
  // A failed listing keeps the last lists on the page (a select must not empty under the cursor)
  // and says that it failed, rather than showing fewer values without a word.
  const last = useRef<typeof listed.data>(undefined);
  if (listed.data) last.current = listed.data;
  const shown = listed.data ?? last.current;
  const lists = useMemo(
    () => new Map<string, Listed>((shown?.members ?? []).map((m) => [m.member, m])),
    [shown],
  );
  // A control's kind is decided by the first answer and stays whatever the filters are later (a
  // list narrowed by another filter must not turn a text box into a select under the cursor).
  const [kinds, setKinds] = useState<Record<string, FilterKind>>({});
  useEffect(() => {
    const missing = [...lists].filter(([m]) => kinds[m] === undefined);
    if (missing.length > 0)
      setKinds((k) => ({ ...k, ...Object.fromEntries(missing.map(([m, l]) => [m, kindOf(l)])) }));
  }, [lists, kinds]);
  if (controls.length === 0) return null;
  return (
    <form className="tsr-controls" aria-label="Dashboard filters" onSubmit={(e) => e.preventDefault()}>
      {controls.map((c) => {
        const key = `${c.kind}:${c.member}`;
        if (c.kind === 'dateRange')
          return <DateRange key={key} member={c.member} state={state} onChange={onChange} />;
        if (c.kind === 'grain')
          return (
            <GrainSelect
              key={key}
              member={c.member}
              published={c.published}
              choices={c.choices ?? grainChoices}
              state={state}
              onChange={onChange}
            />
          );
        return (
          <DimensionFilter
            key={key}
            member={c.member}
            kind={kinds[c.member] ?? null}
            values={lists.get(c.member)?.values ?? []}
            notApplied={lists.get(c.member)?.notApplied ?? []}
            state={state}
            onChange={onChange}
          />
        );
      })}
      <FilterChips state={state} onChange={onChange} />
      {isEmptyState(state) ? null : (
        <button
          type="button"
          className="tsr-reset"
          onClick={() => onChange({ equals: {}, contains: {}, ranges: {}, grains: {} })}
        >
          Reset
        </button>
      )}
      {/* On a line of its own, under the controls it is about. */}
      {listed.isError ? (
        <p className="tsr-controls-error" role="alert">
          Could not list the filter values: {errorText(listed.error)}
        </p>
      ) : null}
    </form>
  );
}

/**
 * The picked values filtering the dashboard (a bar or slice clicked, a value chosen in a list),
 * each as a chip whose × removes it: "Orders status: completed ×".
 */
function FilterChips({ state, onChange }: { state: ViewState; onChange: (s: ViewState) => void }) {
  const picked = Object.entries(state.equals);
  if (picked.length === 0) return null;
  const remove = (member: string) => {
    const equals = { ...state.equals };
    delete equals[member];
    onChange({ ...state, equals });
  };
  return (
    <ul className="tsr-chips" aria-label="Picked filters">
      {picked.map(([member, value]) => (
        <li key={member} className="tsr-chip" data-chip={member}>
          <span>
            {memberLabel(member)}: <strong>{value}</strong>
          </span>
          <button
            type="button"
            className="tsr-chip-remove"
            aria-label={`Remove the filter ${memberLabel(member)}: ${value}`}
            onClick={() => remove(member)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/**
 * What a dimension's control is: a time dimension a date range, a text dimension whose every
 * value came back a select, one with more than `maxListed` values a text box (contains); numbers
 * get no control.
 */
function kindOf(listed: Listed): FilterKind {
  if (listed.type === 'time') return 'dateRange';
  if (listed.type !== 'string' && listed.type !== 'boolean') return 'none';
  return listed.complete ? 'select' : 'text';
}

function Field({
  member,
  kind,
  label,
  children,
  htmlFor,
  note,
}: {
  member: string;
  kind: string;
  label: string;
  htmlFor?: string;
  children: ReactNode;
  /** A line under the input (the filters a list is not narrowed by). */
  note?: ReactNode;
}) {
  return (
    <div className="tsr-control" data-control={member} data-kind={kind}>
      <label className="tsr-control-title" htmlFor={htmlFor}>
        {label}
      </label>
      <div className="tsr-control-input">{children}</div>
      {note}
    </div>
  );
}

function DateRange({
  member,
  state,
  onChange,
}: {
  member: string;
  state: ViewState;
  onChange: (s: ViewState) => void;
}) {
  const id = useId();
  const range = state.ranges[member] ?? {};
  const set = (end: 'from' | 'to', value: string) => {
    const next = { ...range, [end]: value || undefined };
    const ranges = { ...state.ranges };
    if (next.from || next.to) ranges[member] = next;
    else delete ranges[member];
    onChange({ ...state, ranges });
  };
  return (
    <Field member={member} kind="dateRange" label={memberLabel(member)} htmlFor={`${id}-from`}>
      <input
        id={`${id}-from`}
        type="date"
        aria-label={`${memberLabel(member)} from`}
        value={range.from ?? ''}
        max={range.to}
        onChange={(e) => set('from', e.target.value)}
      />
      <span className="tsr-range-dash" aria-hidden="true">
        –
      </span>
      <input
        type="date"
        aria-label={`${memberLabel(member)} to`}
        value={range.to ?? ''}
        min={range.from}
        onChange={(e) => set('to', e.target.value)}
      />
    </Field>
  );
}

function GrainSelect({
  member,
  published,
  choices,
  state,
  onChange,
}: {
  member: string;
  published: string;
  /** The grains offered: the dashboard's switcher's (settings.timeGrains), or the usual five. */
  choices: readonly string[];
  state: ViewState;
  onChange: (s: ViewState) => void;
}) {
  const id = useId();
  const set = (value: string) => {
    const grains = { ...state.grains };
    if (value === '' || value === published) delete grains[member];
    else grains[member] = value as Grain;
    onChange({ ...state, grains });
  };
  return (
    <Field member={member} kind="grain" label="Group by" htmlFor={id}>
      <select id={id} value={state.grains[member] ?? published} onChange={(e) => set(e.target.value)}>
        {choices.includes(published) ? null : <option value={published}>{capitalise(published)}</option>}
        {choices.map((g) => (
          <option key={g} value={g}>
            {capitalise(g)}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A filter on a dimension, of the kind its listed values decided (`kindOf`). */
function DimensionFilter({
  member,
  kind,
  values,
  notApplied,
  state,
  onChange,
}: {
  member: string;
  kind: FilterKind | null;
  values: string[];
  notApplied: string[];
  state: ViewState;
  onChange: (s: ViewState) => void;
}) {
  const id = useId();
  const label = memberLabel(member);
  // The server lists this member without the filters its cube cannot be joined to: said here.
  const note =
    notApplied.length > 0 ? (
      <span className="tsr-control-note" id={`${id}-note`}>
        Not narrowed by {notApplied.map(memberLabel).join(', ')}
      </span>
    ) : null;
  const chosen = state.equals[member];
  const typed = state.contains[member];
  if (kind === 'dateRange') return <DateRange member={member} state={state} onChange={onChange} />;
  // Until the kind is known, a value the link carries keeps its control on the page; a "contains"
  // text from a link keeps its text box even once the values would fit a list (else the filter
  // would apply with no control showing it, and the box would vanish under a reader's cursor).
  const showSelect = typed === undefined && (chosen !== undefined ? kind !== 'text' : kind === 'select');
  const showText = typed !== undefined || kind === 'text';
  if (showSelect) {
    const setEquals = (value: string) => {
      const equals = { ...state.equals };
      if (value === '') delete equals[member];
      else equals[member] = value;
      onChange({ ...state, equals });
    };
    return (
      <Field member={member} kind="select" label={label} htmlFor={id} note={note}>
        <select
          id={id}
          value={chosen ?? ''}
          aria-describedby={note ? `${id}-note` : undefined}
          onChange={(e) => setEquals(e.target.value)}
        >
          <option value="">All</option>
          {chosen !== undefined && !values.includes(chosen) ? <option value={chosen}>{chosen}</option> : null}
          {values.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </Field>
    );
  }
  if (!showText) return null;
  const setContains = (text: string) => {
    const contains = { ...state.contains };
    if (text === '') delete contains[member];
    else contains[member] = text;
    onChange({ ...state, contains });
  };
  return (
    <Field member={member} kind="text" label={label} htmlFor={id}>
      <TextFilter id={id} value={typed ?? ''} onCommit={setContains} />
    </Field>
  );
}

/** A text box that applies what was typed after a pause, on Enter, or when it loses focus. */
function TextFilter({
  id,
  value,
  onCommit,
}: {
  id: string;
  value: string;
  onCommit: (text: string) => void;
}) {
  const [text, setText] = useState(value);
  const commit = useRef(onCommit);
  commit.current = onCommit;
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => commit.current(text.trim()), 500);
    return () => clearTimeout(timer);
  }, [text, value]);
  return (
    <input
      id={id}
      type="search"
      placeholder="Contains…"
      value={text}
      onChange={(e) => setText(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') onCommit(text.trim());
      }}
      onBlur={() => text.trim() !== value && onCommit(text.trim())}
    />
  );
}

function capitalise(word: string) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
