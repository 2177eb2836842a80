import fc from 'fast-check';

/**
 * A long string, built only when the request is serialised: fast-check prints it as
 * `'x'.repeat(n)` in a counterexample instead of a megabyte of text.
 */
export class Huge {
  constructor(
    readonly length: number,
    readonly unit = 'x',
  ) {}
  toJSON() {
    return this.unit.repeat(Math.ceil(this.length / this.unit.length)).slice(0, this.length);
  }
  [fc.toStringMethod]() {
    return `${JSON.stringify(this.unit)}.repeat(${this.length})`;
  }
}

/** Arrays or objects nested `depth` deep, printed as such. */
export class Deep {
  constructor(
    readonly depth: number,
    readonly shape: 'array' | 'object',
  ) {}
  toJSON() {
    let value: unknown = 'bottom';
    for (let i = 0; i < this.depth; i++) value = this.shape === 'array' ? [value] : { a: value };
    return value;
  }
  [fc.toStringMethod]() {
    return `nested ${this.shape}s, ${this.depth} deep`;
  }
}

/** A JSON value with its Huge and Deep parts built, as the server will read it. */
export const materialize = <T>(value: T): T =>
  value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);

/** Strings the store cannot hold: refused with 400 naming where they are. */
export const unstorableText = fc.constantFrom(
  'a\u0000b',
  '\u0000',
  'x\uD800',
  '\uDC00y',
  'pair\uDBFF',
  'end\u0000',
);

/** Text the store holds but that trips naive code: control characters, bidi overrides, BOM, U+2028. */
export const awkwardText = fc.constantFrom(
  '\u0001\u0002\u001f',
  'tab\there',
  'line\r\nbreak',
  '\u007f\u0085',
  '\u202Ereversed',
  '\uFEFFbom',
  '\u2028\u2029',
  'quote\' " back\\slash',
  '%00%ZZ',
  '../../etc/passwd',
  "'; DROP TABLE users; --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, sent as it is
  '${jndi:ldap://x}',
  '{{7*7}}',
  '\u{1F600}\u{10FFFF}',
  ' ',
  '',
);

/** Just under the default 1 MiB body limit once quoted, so that validation, not the parser, answers. */
export const hugeString = fc.constantFrom(
  new Huge(900_000),
  new Huge(100_000, 'é'),
  new Huge(300_000, '\u{1F600}'),
);

export const deepValue = fc.constantFrom(
  new Deep(200, 'array'),
  new Deep(200, 'object'),
  new Deep(1000, 'array'),
);

/** Values of every JSON type: the first the schema refuses makes a wrong-type value. */
export const anyTypeValues: unknown[] = [
  12345.5,
  'not-the-right-type',
  true,
  ['x'],
  { nested: true },
  -1,
  null,
  0,
  2 ** 53,
  '',
];

/** Path-parameter text that is not an id: the route must refuse it, never 500. */
export const malformedIds = [
  'abc',
  '-1',
  '0',
  'false',
  '2147483648',
  '99999999999999999999',
  // Not decimal integers, though a lenient conversion reads numbers in them: kept clear of ids
  // that exist (read as deployment 1, a fuzzed DELETE of `1.5` would remove it).
  '2000000001.5',
  '2e9',
  '0x7FFFFFF0',
  ' 2000000001',
  '%00',
  '%ZZ',
  '%2F',
  '%E2%80%AE1',
  'null',
  '%5B%5D',
  'a'.repeat(2000),
  '%F0%9F%98%80',
];

export const garbageRequestIds = fc.constantFrom(
  'a\u0000b',
  '\uD800',
  'line\r\nInjected: yes',
  'x'.repeat(10_000),
  'ünïcödé',
  '',
  ' ',
  '../../',
);

export const absurdContentTypes = fc.constantFrom(
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/xml',
  'application/octet-stream',
  ';;;',
  'application/json\u0000',
  `application/${'x'.repeat(5000)}`,
  'application/json; charset=klingon',
  'APPLICATION/JSON; CHARSET=UTF-8',
  'application/json, text/plain',
  'application/scim+json; profile="x"',
);

/** Bodies that are not the JSON object a route reads. */
export const rawBodies = fc.constantFrom(
  '{',
  '{"a":',
  '[1,2',
  'nul',
  '{"a":1}garbage',
  '\uFEFF{}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '',
  '   ',
  'null',
  '123',
  '"text"',
  '[]',
  '[{}]',
  '{"a":1e400}',
  `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"\\u0000":1}',
);
