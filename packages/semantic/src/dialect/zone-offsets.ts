import { UserError } from '../errors.ts';

/**
 * A zone's UTC offsets over a span of instants, read once from the runtime's IANA data (Intl) so
 * that an engine can add an offset per row instead of calling its own time-zone library per row.
 * `offsets[0]` holds from `from`; `offsets[i]` from `changes[i - 1]` (the instant, in ms, at which
 * it takes effect) until the next change. Offsets are in whole seconds, as in the tz database.
 */
export interface ZoneOffsets {
  readonly from: number;
  readonly to: number;
  readonly changes: readonly number[];
  readonly offsets: readonly number[];
}

/**
 * The span covered: instants outside it keep the engine's own conversion (exact, only slower).
 * Each change costs the engine some planning per query (DuckDB: about 30 µs per CASE branch, so
 * some 5 ms for New York's 140 changes in this span), hence a span that holds most analytics
 * data rather than all of time. Every change in the tz database is at least weeks from the
 * next, so sampling daily and then bisecting to the second finds them all.
 */
const FROM = Date.UTC(1990, 0, 1);
const TO = Date.UTC(2060, 0, 1);
const DAY = 86_400_000;

const cache = new Map<string, ZoneOffsets>();

export function zoneOffsets(zone: string): ZoneOffsets {
  let hit = cache.get(zone);
  if (!hit) {
    hit = scan(offsetAt(zone));
    cache.set(zone, hit);
  }
  return hit;
}

function scan(offset: (instant: number) => number): ZoneOffsets {
  const changes: number[] = [];
  const offsets = [offset(FROM)];
  for (let t = FROM + DAY; t < TO; t += DAY) {
    const current = offsets[offsets.length - 1];
    if (offset(t) === current) continue;
    // offset(lo) is the current one, offset(hi) is not: narrow to the second of the change
    let lo = t - DAY;
    let hi = t;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (offset(mid) === current) lo = mid;
      else hi = mid;
    }
    changes.push(hi);
    offsets.push(offset(hi));
  }
  return { from: FROM, to: TO, changes, offsets };
}

/**
 * Offset in seconds at an instant, from the wall clock Intl prints there (`format` and a regex:
 * about three times faster than formatToParts, which matters for the ~40,000 days scanned).
 */
function offsetAt(zone: string): (instant: number) => number {
  let f: Intl.DateTimeFormat;
  try {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    throw new UserError(`Unknown timezone: ${zone}`);
  }
  return (instant) => {
    const m = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/.exec(f.format(instant));
    if (!m) throw new Error(`Unexpected wall clock for ${zone}: ${f.format(instant)}`);
    const local = Date.UTC(+m[3], +m[1] - 1, +m[2], +m[4], +m[5], +m[6]);
    return Math.round((local - instant) / 1000);
  };
}
