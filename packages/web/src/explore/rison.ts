/**
 * Rison (https://github.com/Nanonid/rison): JSON spelled to read well in an address.
 * `{"measures":["orders.count"],"limit":100}` is `(limit:100,measures:!(orders.count))`:
 * objects in `( )`, arrays in `!( )`, `!t` `!f` `!n` for true, false and null, and strings bare
 * when they are made of name characters (else in `' '`, with `!` escaping `'` and `!`).
 */

const notIdChar = " '!:(),*@$";
const idPattern = /^[^-0-9 '!:(),*@$][^ '!:(),*@$]*$/;

function encodeString(value: string): string {
  if (idPattern.test(value) && !/[\s"]/.test(value)) return value;
  return `'${value.replace(/[!']/g, (c) => `!${c}`)}'`;
}

/** A JSON value as Rison text. Keys keep their order (the query reads as it was built). */
export function encodeRison(value: unknown): string {
  if (value === null || value === undefined) return '!n';
  if (value === true) return '!t';
  if (value === false) return '!f';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '!n';
  if (typeof value === 'string') return encodeString(value);
  if (Array.isArray(value)) return `!(${value.map(encodeRison).join(',')})`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `(${entries.map(([k, v]) => `${encodeString(k)}:${encodeRison(v)}`).join(',')})`;
  }
  return '!n';
}

/** Rison text as a JSON value; a malformed text throws a SyntaxError that says where. */
export function decodeRison(text: string): unknown {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at character ${i + 1}`);
  };
  const value = (): unknown => {
    const c = text[i];
    if (c === undefined) return fail('Unexpected end');
    if (c === '(') {
      i++;
      const out: Record<string, unknown> = {};
      if (text[i] === ')') {
        i++;
        return out;
      }
      for (;;) {
        const key = value();
        if (typeof key !== 'string') fail('Expected a key');
        if (text[i] !== ':') fail('Expected ":"');
        i++;
        out[key as string] = value();
        if (text[i] === ',') i++;
        else if (text[i] === ')') {
          i++;
          return out;
        } else fail('Expected "," or ")"');
      }
    }
    if (c === '!') {
      const next = text[i + 1];
      i += 2;
      if (next === 't') return true;
      if (next === 'f') return false;
      if (next === 'n') return null;
      if (next !== '(') return fail('Unknown "!" value');
      const out: unknown[] = [];
      if (text[i] === ')') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value());
        if (text[i] === ',') i++;
        else if (text[i] === ')') {
          i++;
          return out;
        } else fail('Expected "," or ")"');
      }
    }
    if (c === "'") {
      i++;
      let s = '';
      for (;;) {
        const ch = text[i++];
        if (ch === undefined) fail('Unterminated string');
        if (ch === "'") return s;
        if (ch === '!') {
          const esc = text[i++];
          if (esc !== '!' && esc !== "'") fail('Bad escape');
          s += esc;
        } else s += ch;
      }
    }
    const start = i;
    while (i < text.length && !notIdChar.includes(text[i])) i++;
    const word = text.slice(start, i);
    if (word === '') return fail('Unexpected character');
    if (/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(word)) return Number(word);
    return word;
  };
  const result = value();
  if (i !== text.length) fail('Unexpected text after the value');
  return result;
}

/**
 * Rison text for a query-string value: percent-escaped where it must be, but keeping the
 * characters Rison is made of (`( ) ! : , '`) and dots readable.
 */
export function risonParam(value: unknown): string {
  return encodeURIComponent(encodeRison(value)).replace(/%(28|29|21|3A|2C|27)/g, (m) =>
    decodeURIComponent(m),
  );
}
