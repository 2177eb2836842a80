import fc from 'fast-check';

/** The JSON Schema keywords our TypeBox route schemas use (see the route table). */
export interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  maxProperties?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
}

/**
 * Overrides for places where a random value of the right type says nothing (a member name of the
 * data model, a SCIM patch path): called with the path in stars form (`/query/measures/*`).
 */
export type Hints = (starPath: string) => fc.Arbitrary<unknown> | undefined;

export const noHints: Hints = () => undefined;

/** A JSON pointer segment (RFC 6901 section 3), as the server names fields. */
export const pointerSegment = (key: string | number) =>
  `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;

export function typesOf(schema: JsonSchema): string[] {
  if (schema.type !== undefined) return [schema.type].flat();
  if (schema.anyOf) return [...new Set(schema.anyOf.flatMap(typesOf))];
  if (schema.enum || schema.const !== undefined) return ['string'];
  return [];
}

/** Text the store can hold: any code point but U+0000 (lone surrogates never come from `binary`). */
export const storableText = (minLength: number, maxLength: number) =>
  fc.string({ unit: 'binary', minLength, maxLength }).filter((s) => !s.includes('\u0000'));

/** Integers beyond 32 bits and up to 1e20, where a schema sets no bound: the store's int4/int8 edges. */
const edgeIntegers = [
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31) - 1,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  2 ** 63,
  1e20,
];

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 64, minLength + 24);
  const fits = (s: string) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity);
  if (schema.format === 'email') return fc.emailAddress().filter((s) => fits(s) && s.length <= 320);
  if (schema.format === 'date-time')
    return fc
      .date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (schema.pattern) {
    const pattern = new RegExp(schema.pattern, 'u');
    const matching = fc.stringMatching(pattern).filter(fits);
    if (schema.pattern.startsWith('^')) return matching;
    // Unanchored patterns (`\S`) ask for one character somewhere: random text usually has one.
    return fc.oneof(
      matching,
      storableText(Math.max(minLength, 1), maxLength).filter((s) => pattern.test(s)),
    );
  }
  return storableText(minLength, maxLength);
}

function objectArbitrary(schema: JsonSchema, path: string, hints: Hints): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    model[name] = validValue(property, `${path}${pointerSegment(name)}`, hints);
  const record = fc.record(model, {
    noNullPrototype: true,
    requiredKeys: (schema.required ?? []).filter((k) => k in properties),
  });
  const free =
    Object.values(schema.patternProperties ?? {})[0] ??
    (schema.additionalProperties === true ? {} : undefined);
  if (!free) return record;
  const extra = fc.dictionary(
    storableText(1, 12).filter((k) => !(k in properties)),
    validValue(free, `${path}/*`, hints),
    { maxKeys: Math.min(schema.maxProperties ?? 4, 4), noNullPrototype: true },
  );
  return fc.tuple(record, extra).map(([known, more]) => ({ ...more, ...(known as object) }));
}

/**
 * Values a schema accepts, built from its keywords: lengths, bounds, enums, patterns, formats,
 * nested objects and arrays, unions. Sizes stay small so that a run is cheap; the hostile values
 * (huge, deep) are generated on purpose elsewhere.
 */
export function validValue(schema: JsonSchema, path = '', hints: Hints = noHints): fc.Arbitrary<unknown> {
  const hinted = hints(path.replace(/\/\d+(?=\/|$)/g, '/*'));
  if (hinted) return hinted;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => validValue(s, path, hints)));
  const types = [schema.type ?? []].flat();
  if (types.length === 0)
    return fc.jsonValue({ maxDepth: 2 }).filter((v) => !JSON.stringify(v).includes('\\u0000'));
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'string':
          return stringArbitrary(schema);
        case 'integer': {
          const min = schema.minimum ?? Number.MIN_SAFE_INTEGER;
          const max = schema.maximum ?? Number.MAX_SAFE_INTEGER;
          const bounded = fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) });
          const edges = edgeIntegers.filter((n) => n >= min && n <= max);
          return edges.length > 0
            ? fc.oneof({ arbitrary: bounded, weight: 4 }, fc.constantFrom(...edges))
            : bounded;
        }
        case 'number':
          return fc.double({
            min: schema.minimum ?? -1e308,
            max: schema.maximum ?? 1e308,
            noNaN: true,
            noDefaultInfinity: true,
          });
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        case 'array': {
          const item = validValue(schema.items ?? {}, `${path}/0`, hints);
          const minLength = schema.minItems ?? 0;
          const maxLength = Math.min(schema.maxItems ?? 4, minLength + 3);
          return schema.uniqueItems
            ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
            : fc.array(item, { minLength, maxLength });
        }
        default:
          return objectArbitrary(schema, path, hints);
      }
    }),
  );
}

/** The schema that governs `path` (pointer segments) inside `schema`, through unions and free objects. */
export function schemaAt(schema: JsonSchema, segments: readonly string[]): JsonSchema | undefined {
  if (segments.length === 0) return schema;
  const [head, ...rest] = segments;
  const candidates = schema.anyOf ?? [schema];
  for (const candidate of candidates) {
    const child =
      candidate.properties?.[head] ??
      (candidate.items && /^\d+$/.test(head) ? candidate.items : undefined) ??
      Object.values(candidate.patternProperties ?? {})[0] ??
      (candidate.additionalProperties === true ? {} : undefined) ??
      (typeof candidate.additionalProperties === 'object' ? candidate.additionalProperties : undefined);
    const found = child && schemaAt(child, rest);
    if (found) return found;
  }
  return undefined;
}
