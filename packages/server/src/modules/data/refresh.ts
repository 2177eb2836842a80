import type { Model, ResolvedQuery } from '@tessera/semantic';

const units: Record<string, number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
};

/** `refresh_key.every` ("30 seconds", "1 hour", "5 minute") in ms; null when unreadable. */
export function everyMs(every: string | undefined): number | null {
  const m = /^\s*(\d+)\s*(second|minute|hour|day|week)s?\s*$/i.exec(every ?? '');
  return m ? Number(m[1]) * units[m[2].toLowerCase()] : null;
}

/**
 * How long a result stays fresh: the shortest `refresh_key.every` of the cubes the query reads
 * (Cube's in-memory cache checks refresh keys; `every` alone is the time-based variant), or null
 * when none sets one (the caller then uses its default). `refresh_key.sql` is not evaluated.
 */
export function refreshKeyMs(model: Model, q: ResolvedQuery): number | null {
  const cubes = new Set<string>();
  for (const m of [...q.measures, ...q.dimensions, ...q.segments, ...q.timeDimensions.map((t) => t.member)])
    cubes.add(m.member.cube);
  let best: number | null = null;
  for (const name of cubes) {
    const ms = everyMs(model.cubes.get(name)?.refreshKey?.every);
    if (ms !== null) best = best === null ? ms : Math.min(best, ms);
  }
  return best;
}
