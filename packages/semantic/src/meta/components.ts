import type { Model } from '../model/types.ts';

const cache = new WeakMap<Model, Map<string, number>>();

/** Cube's `connectedComponent`: cubes linked by joins (either direction) share a number from 1. */
export function connectedComponents(model: Model): Map<string, number> {
  const hit = cache.get(model);
  if (hit) return hit;
  const out = new Map<string, number>();
  let next = 1;
  for (const start of model.cubes.keys()) {
    if (out.has(start)) continue;
    const component = next++;
    const stack = [start];
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (out.has(name)) continue;
      out.set(name, component);
      for (const target of model.cubes.get(name)?.joins.keys() ?? []) stack.push(target);
      for (const other of model.cubes.values()) if (other.joins.has(name)) stack.push(other.name);
    }
  }
  cache.set(model, out);
  return out;
}
