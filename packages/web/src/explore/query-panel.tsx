import { useEffect, useId, useState } from 'react';
import { useDimensionValues } from './data.ts';
import { operatorInfo, operatorsFor, relativeRanges } from './filters.ts';
import type { ExploreModel, Member } from './model.ts';
import { type ExploreQuery, granularities, type MemberFilter, type TimeDimension } from './query-state.ts';
import { ValuesPicker } from './values-picker.tsx';

export interface QueryPanelProps {
  /** Whose data API answers the filters' value suggestions. */
  deploymentId: number;
  model: ExploreModel;
  query: ExploreQuery;
  onChange: (query: ExploreQuery) => void;
}

const titleOf = (model: ExploreModel, name: string) => model.members.get(name)?.fullTitle ?? name;

/**
 * The question as it stands: its measures and dimensions (each removable), its time dimensions
 * with their granularity and date range, its filters, order and row limit.
 */
export function QueryPanel({ deploymentId, model, query, onChange }: QueryPanelProps) {
  const set = (patch: Partial<ExploreQuery>) => onChange({ ...query, ...patch });
  const measures = query.measures ?? [];
  const dimensions = query.dimensions ?? [];
  const segments = query.segments ?? [];
  const times = query.timeDimensions ?? [];
  const filters = query.filters ?? [];
  return (
    <section className="ex-query card" aria-label="Query">
      <div className="card-body ex-query-body">
        <Chips
          label="Measures"
          names={measures}
          model={model}
          empty="Pick measures in the model."
          onRemove={(n) => set({ measures: measures.filter((m) => m !== n), order: dropOrder(query, n) })}
        />
        <Chips
          label="Dimensions"
          names={dimensions}
          model={model}
          empty="Pick dimensions to group by."
          onRemove={(n) => set({ dimensions: dimensions.filter((m) => m !== n), order: dropOrder(query, n) })}
        />
        {segments.length > 0 && (
          <Chips
            label="Segments"
            names={segments}
            model={model}
            empty=""
            onRemove={(n) => set({ segments: segments.filter((m) => m !== n) })}
          />
        )}
        <div className="ex-query-row">
          <span className="ex-query-label">Time</span>
          <div className="ex-query-items">
            {times.length === 0 && (
              <span className="muted ex-empty">Pick a time dimension for a time series.</span>
            )}
            {times.map((t, i) => (
              <TimeRow
                key={t.dimension}
                model={model}
                time={t}
                onChange={(next) => set({ timeDimensions: times.map((x, j) => (j === i ? next : x)) })}
                onRemove={() =>
                  set({
                    timeDimensions: times.filter((_, j) => j !== i),
                    order: dropOrder(query, t.dimension),
                  })
                }
              />
            ))}
          </div>
        </div>
        <div className="ex-query-row">
          <span className="ex-query-label">Filters</span>
          <div className="ex-query-items ex-filters">
            {filters.map((f, i) =>
              'member' in f ? (
                <FilterRow
                  deploymentId={deploymentId}
                  // biome-ignore lint/suspicious/noArrayIndexKey: filters are positional and may repeat a member
                  key={i}
                  model={model}
                  filter={f as MemberFilter}
                  onChange={(next) => set({ filters: filters.map((x, j) => (j === i ? next : x)) })}
                  onRemove={() => set({ filters: filters.filter((_, j) => j !== i) })}
                />
              ) : (
                // biome-ignore lint/suspicious/noArrayIndexKey: as above
                <div key={i} className="ex-filter">
                  <code className="ex-filter-json">{JSON.stringify(f)}</code>
                  <button
                    type="button"
                    className="button button-ghost ex-remove"
                    onClick={() => set({ filters: filters.filter((_, j) => j !== i) })}
                  >
                    Remove
                  </button>
                </div>
              ),
            )}
            <AddFilter
              model={model}
              preferred={[...dimensions, ...times.map((t) => t.dimension), ...measures]}
              onAdd={(member) => {
                const m = model.members.get(member);
                const operator = operatorsFor(m)[0].value;
                set({ filters: [...filters, { member, operator, values: [] }] });
              }}
            />
          </div>
        </div>
        <OrderRow model={model} query={query} onChange={(order) => set({ order })} />
        <LimitRow limit={query.limit} onChange={(limit) => set({ limit })} />
      </div>
    </section>
  );
}

function dropOrder(query: ExploreQuery, member: string) {
  return (query.order ?? []).filter(([m]) => m !== member);
}

function Chips({
  label,
  names,
  model,
  empty,
  onRemove,
}: {
  label: string;
  names: string[];
  model: ExploreModel;
  empty: string;
  onRemove: (name: string) => void;
}) {
  return (
    <div className="ex-query-row">
      <span className="ex-query-label">{label}</span>
      <ul className="ex-query-items ex-chips" aria-label={label}>
        {names.length === 0 && <li className="muted ex-empty">{empty}</li>}
        {names.map((n) => (
          <li key={n} className="ex-chip">
            <span title={n}>{titleOf(model, n)}</span>
            <button
              type="button"
              className="ex-chip-remove"
              aria-label={`Remove ${titleOf(model, n)}`}
              onClick={() => onRemove(n)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function DateRangeInput({
  value,
  onChange,
  label,
}: {
  value: string | string[] | undefined;
  onChange: (value: string | string[] | undefined) => void;
  label: string;
}) {
  const id = useId();
  const custom = Array.isArray(value);
  const choice = value === undefined ? '' : custom ? 'custom' : value;
  const [from, to] = custom ? value : ['', ''];
  return (
    <span className="ex-range">
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <select
        id={id}
        value={choice}
        onChange={(e) => {
          const v = e.target.value;
          if (v === '') onChange(undefined);
          else if (v === 'custom')
            onChange([
              from || new Date().toISOString().slice(0, 10),
              to || new Date().toISOString().slice(0, 10),
            ]);
          else onChange(v);
        }}
      >
        <option value="">All time</option>
        {relativeRanges.map((r) => (
          <option key={r} value={r}>
            {r.charAt(0).toUpperCase() + r.slice(1)}
          </option>
        ))}
        {!custom && choice !== '' && !relativeRanges.includes(choice) && (
          <option value={choice}>{choice}</option>
        )}
        <option value="custom">Between dates…</option>
      </select>
      {custom && (
        <>
          <input
            type="date"
            aria-label={`${label}: from`}
            value={from?.slice(0, 10) ?? ''}
            onChange={(e) => onChange([e.target.value, to ?? e.target.value])}
          />
          <input
            type="date"
            aria-label={`${label}: to`}
            value={to?.slice(0, 10) ?? ''}
            onChange={(e) => onChange([from ?? e.target.value, e.target.value])}
          />
        </>
      )}
    </span>
  );
}

function TimeRow({
  model,
  time,
  onChange,
  onRemove,
}: {
  model: ExploreModel;
  time: TimeDimension;
  onChange: (time: TimeDimension) => void;
  onRemove: () => void;
}) {
  const id = useId();
  const title = titleOf(model, time.dimension);
  return (
    <div className="ex-time">
      <span className="ex-chip ex-chip-time" title={time.dimension}>
        {title}
      </span>
      <label htmlFor={id} className="visually-hidden">
        Granularity of {title}
      </label>
      <select
        id={id}
        value={time.granularity ?? ''}
        onChange={(e) => onChange({ ...time, granularity: e.target.value || undefined })}
      >
        <option value="">No grouping (filter only)</option>
        {granularities.map((g) => (
          <option key={g} value={g}>
            by {g}
          </option>
        ))}
      </select>
      <DateRangeInput
        label={`Date range of ${title}`}
        value={time.dateRange}
        onChange={(dateRange) => onChange({ ...time, dateRange })}
      />
      <button
        type="button"
        className="button button-ghost ex-remove"
        aria-label={`Remove ${title}`}
        onClick={onRemove}
      >
        Remove
      </button>
    </div>
  );
}

/** A text input that says what it holds on Enter or when left, not on each key. */
function CommitInput({
  value,
  onCommit,
  ...rest
}: { value: string; onCommit: (value: string) => void } & Omit<
  React.InputHTMLAttributes<HTMLInputElement>,
  'value' | 'onChange'
>) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  return (
    <input
      {...rest}
      value={text}
      onChange={(e) => setText(e.target.value)}
      onBlur={() => text !== value && onCommit(text)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          onCommit(text);
        }
      }}
    />
  );
}

function FilterRow({
  deploymentId,
  model,
  filter,
  onChange,
  onRemove,
}: {
  deploymentId: number;
  model: ExploreModel;
  filter: MemberFilter;
  onChange: (filter: MemberFilter) => void;
  onRemove: () => void;
}) {
  const id = useId();
  const member = model.members.get(filter.member);
  const title = titleOf(model, filter.member);
  const info = operatorInfo(filter.operator);
  const operators = operatorsFor(member);
  if (!operators.some((o) => o.value === info.value)) operators.push(info);
  const offersValues = info.takes === 'values' && member?.kind === 'dimension' && member.type === 'string';
  const suggestions = useDimensionValues(deploymentId, offersValues ? filter.member : null);
  return (
    <fieldset className="ex-filter">
      <legend className="visually-hidden">Filter on {title}</legend>
      <span className="ex-chip" title={filter.member}>
        {title}
      </span>
      <label htmlFor={id} className="visually-hidden">
        Operator
      </label>
      <select
        id={id}
        value={filter.operator}
        onChange={(e) => {
          const next = operatorInfo(e.target.value);
          const values = next.takes === 'none' ? undefined : next.takes === info.takes ? filter.values : [];
          onChange({ member: filter.member, operator: next.value, ...(values ? { values } : {}) });
        }}
      >
        {operators.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {info.takes === 'values' && (
        <ValuesPicker
          label="Values"
          values={filter.values ?? []}
          suggestions={suggestions.data ?? []}
          numeric={member?.type === 'number'}
          onChange={(values) => onChange({ ...filter, values })}
        />
      )}
      {info.takes === 'date' && (
        <input
          type="date"
          aria-label="Date"
          value={filter.values?.[0]?.slice(0, 10) ?? ''}
          onChange={(e) => onChange({ ...filter, values: e.target.value ? [e.target.value] : [] })}
        />
      )}
      {info.takes === 'range' && (
        <DateRangeInput
          label="Date range"
          value={
            filter.values && filter.values.length === 1
              ? filter.values[0]
              : filter.values && filter.values.length === 2
                ? filter.values
                : undefined
          }
          onChange={(v) => onChange({ ...filter, values: v === undefined ? [] : Array.isArray(v) ? v : [v] })}
        />
      )}
      <button
        type="button"
        className="button button-ghost ex-remove"
        aria-label={`Remove the filter on ${title}`}
        onClick={onRemove}
      >
        Remove
      </button>
    </fieldset>
  );
}

/** A select of every member by cube (or a short list of the query's own first). */
function MemberSelect({
  model,
  id,
  value,
  onChange,
  placeholder,
  preferred = [],
  kinds = ['measure', 'dimension'],
}: {
  model: ExploreModel;
  id: string;
  value: string;
  onChange: (name: string) => void;
  placeholder: string;
  preferred?: string[];
  kinds?: Member['kind'][];
}) {
  const inQuery = [...new Set(preferred)].filter((n) => model.members.has(n));
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{placeholder}</option>
      {inQuery.length > 0 && (
        <optgroup label="In the query">
          {inQuery.map((n) => (
            <option key={n} value={n}>
              {titleOf(model, n)}
            </option>
          ))}
        </optgroup>
      )}
      {model.cubes.map((c) => (
        <optgroup key={c.name} label={c.title}>
          {[...c.measures, ...c.dimensions]
            .filter((m) => kinds.includes(m.kind))
            .map((m) => (
              <option key={m.name} value={m.name}>
                {m.fullTitle}
              </option>
            ))}
        </optgroup>
      ))}
    </select>
  );
}

function AddFilter({
  model,
  preferred,
  onAdd,
}: {
  model: ExploreModel;
  preferred: string[];
  onAdd: (member: string) => void;
}) {
  const id = useId();
  return (
    <div className="ex-add">
      <label htmlFor={id} className="visually-hidden">
        Add a filter on
      </label>
      <MemberSelect
        model={model}
        id={id}
        value=""
        placeholder="+ Add a filter on…"
        preferred={preferred}
        onChange={(name) => name && onAdd(name)}
      />
    </div>
  );
}

function OrderRow({
  model,
  query,
  onChange,
}: {
  model: ExploreModel;
  query: ExploreQuery;
  onChange: (order: ExploreQuery['order']) => void;
}) {
  const id = useId();
  const order = query.order ?? [];
  const members = [
    ...(query.timeDimensions ?? []).map((t) => t.dimension),
    ...(query.dimensions ?? []),
    ...(query.measures ?? []),
  ].filter((m) => !order.some(([o]) => o === m));
  return (
    <div className="ex-query-row">
      <span className="ex-query-label">Order</span>
      <div className="ex-query-items">
        {order.map(([m, dir], i) => (
          <span key={m} className="ex-order">
            <span className="ex-chip">{titleOf(model, m)}</span>
            <button
              type="button"
              className="button button-secondary ex-dir"
              aria-label={`${titleOf(model, m)}: ${dir === 'asc' ? 'ascending' : 'descending'}; change`}
              onClick={() =>
                onChange(order.map((o, j) => (j === i ? [m, dir === 'asc' ? 'desc' : 'asc'] : o)))
              }
            >
              {dir === 'asc' ? '↑ asc' : '↓ desc'}
            </button>
            <button
              type="button"
              className="ex-chip-remove"
              aria-label={`Stop ordering by ${titleOf(model, m)}`}
              onClick={() => onChange(order.filter((_, j) => j !== i))}
            >
              ×
            </button>
          </span>
        ))}
        {members.length > 0 && (
          <span className="ex-add">
            <label htmlFor={id} className="visually-hidden">
              Order by
            </label>
            <select
              id={id}
              value=""
              onChange={(e) => e.target.value && onChange([...order, [e.target.value, 'asc']])}
            >
              <option value="">+ Order by…</option>
              {members.map((m) => (
                <option key={m} value={m}>
                  {titleOf(model, m)}
                </option>
              ))}
            </select>
          </span>
        )}
        {order.length === 0 && members.length === 0 && (
          <span className="muted ex-empty">The data API’s default.</span>
        )}
      </div>
    </div>
  );
}

function LimitRow({
  limit,
  onChange,
}: {
  limit: number | undefined;
  onChange: (limit: number | undefined) => void;
}) {
  const id = useId();
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <div className="ex-query-row">
      <label className="ex-query-label" htmlFor={id}>
        Limit
      </label>
      <div className="ex-query-items">
        <CommitInput
          id={id}
          className="ex-limit"
          inputMode="numeric"
          placeholder="10,000"
          aria-invalid={problem !== null}
          aria-describedby={problem ? `${id}-problem` : undefined}
          value={limit === undefined ? '' : String(limit)}
          onCommit={(text) => {
            const t = text.replaceAll(',', '').trim();
            if (t === '') {
              setProblem(null);
              return onChange(undefined);
            }
            const n = Number(t);
            if (!Number.isInteger(n) || n < 1 || n > 50_000) {
              setProblem('A whole number of rows from 1 to 50,000.');
              return;
            }
            setProblem(null);
            onChange(n);
          }}
        />
        <span className="muted ex-hint">rows (at most 50,000)</span>
        {problem && (
          <p id={`${id}-problem`} className="field-error ex-limit-problem">
            {problem}
          </p>
        )}
      </div>
    </div>
  );
}
