import { Value } from 'typebox/value';
import { ValidationError } from '../../errors/domain-errors.ts';
import { DashboardConfigInput } from './schemas.ts';

type Config = Record<string, unknown>;
interface Widget {
  id?: string | null;
  type?: string;
  config?: Record<string, unknown> | null;
}

/**
 * Checks a config about to be published (spec 4.4) against the spec 2.2 shape, theme values all
 * strings included, whether it came in the request or from the workbook's draft; widget ids must
 * be unique. Returns the config as stored: every widget carries its `type` (CHART by default).
 */
export function validateForPublish(config: Config, field: string): Config {
  const problems = deepest([...Value.Errors(DashboardConfigInput, config)]);
  if (problems.length > 0) {
    throw new ValidationError(
      'The dashboard config is invalid',
      problems.slice(0, 20).map((p) => ({ field: `${field}${p.path}`, message: p.message })),
      'invalid_dashboard_config',
    );
  }
  const widgets = (config.widgets as Widget[] | null | undefined) ?? [];
  const seen = new Set<string>();
  widgets.forEach((w, i) => {
    if (seen.has(w.id as string)) {
      throw new ValidationError('Widget ids must be unique', [
        { field: `${field}/widgets/${i}/id`, message: 'repeats the id of another widget' },
      ]);
    }
    seen.add(w.id as string);
  });
  return { ...config, widgets: widgets.map((w) => ({ ...w, type: w.type ?? 'CHART' })) };
}

/** Report ids used by the widgets (`config.reportId`), with the index of the first widget using each. */
export function reportRefs(config: Config): Map<number, number> {
  const refs = new Map<number, number>();
  ((config.widgets as Widget[] | null | undefined) ?? []).forEach((w, i) => {
    const id = w.config?.reportId;
    if (id !== undefined && id !== null && !refs.has(id as number)) refs.set(id as number, i);
  });
  return refs;
}

/** Points every widget at the copies of its report (duplicate); unknown ids are left alone. */
export function repoint(config: Config | null, copies: Map<number, number>): Config | null {
  if (config === null) return null;
  const widgets = (config.widgets as Widget[] | null | undefined) ?? null;
  if (widgets === null) return config;
  return {
    ...config,
    widgets: widgets.map((w) => {
      const id = w.config?.reportId as number | undefined;
      return id !== undefined && copies.has(id)
        ? { ...w, config: { ...w.config, reportId: copies.get(id) } }
        : w;
    }),
  };
}

/**
 * One problem per offending field: a nullable field reports "must be string" and "must be null"
 * at its own path plus a union failure at every parent; keep the deepest paths and fold the types.
 */
function deepest(errors: { instancePath: string; keyword: string; message: string; params?: unknown }[]) {
  const paths = [...new Set(errors.map((e) => e.instancePath))];
  const leaves = paths.filter((p) => !paths.some((q) => q !== p && q.startsWith(`${p}/`)));
  return leaves.map((path) => {
    const here = errors.filter((e) => e.instancePath === path);
    const types = here.filter((e) => e.keyword === 'type').map((e) => e.message.replace(/^must be /, ''));
    const other = here.find((e) => e.keyword !== 'type' && e.keyword !== 'anyOf');
    const message = other?.message ?? (types.length > 0 ? `must be ${types.join(' or ')}` : 'is invalid');
    return { path, message };
  });
}
