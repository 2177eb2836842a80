import './results.css';

/**
 * SQL as the warehouse runs it, with its parameters ($1, $2, ...) listed under it. `state` lets
 * a page show the last SQL dimmed while the next is compiled.
 */
export function SqlView({
  sql,
  params = [],
  busy = false,
}: {
  sql: string;
  params?: readonly unknown[];
  busy?: boolean;
}) {
  return (
    <div className={busy ? 'rs-sql rs-dimmed' : 'rs-sql'} aria-busy={busy}>
      <pre className="code rs-sql-text">
        <code>{sql}</code>
      </pre>
      {params.length > 0 && (
        <dl className="rs-sql-params">
          {params.map((p, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: parameters are positional
            <div key={i}>
              <dt>${i + 1}</dt>
              <dd>{typeof p === 'string' ? p : JSON.stringify(p)}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}
