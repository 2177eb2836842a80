import path from 'node:path';

/** The `path` of a DuckDB data source naming the generated sample database. */
export const SAMPLE_PATH = ':sample:';

/**
 * What is wrong with a DuckDB data-source `path`, or null when it is acceptable. A deployment's
 * settings are written through the API, so its path must not name arbitrary files of the server
 * (`/etc/passwd`, another tenant's store) nor reach out (`md:`, `s3://`, `:memory:`): it is
 * `:sample:` or a relative path inside the data directory, with no `..` segment. An operator who
 * keeps a warehouse file elsewhere links it into the data directory.
 */
export function duckDbPathProblem(value: string): string | null {
  if (value === SAMPLE_PATH) return null;
  if (!/^[A-Za-z0-9_.][A-Za-z0-9_. /-]*$/.test(value))
    return "must be ':sample:' or a file path relative to the data directory (letters, digits, _ . - / and spaces)";
  if (value.split('/').some((segment) => segment === '..' || segment === ''))
    return 'must stay inside the data directory: no .. segment and no empty segment';
  return null;
}

/** The file a valid relative `path` names, resolved inside `dataDir`; null when it would leave it. */
export function duckDbFile(dataDir: string, value: string): string | null {
  if (duckDbPathProblem(value) !== null) return null;
  const root = path.resolve(dataDir);
  const file = path.resolve(root, value);
  return file.startsWith(root + path.sep) ? file : null;
}
