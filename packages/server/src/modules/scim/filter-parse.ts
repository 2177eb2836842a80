import { type Filter, parse } from 'scim2-parse-filter';
import { invalidFilter } from './errors.ts';

const comparison = /^(eq|ne|co|sw|ew|gt|ge|lt|le)$/i;
const literal = /^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)$/;

/**
 * Quotes bare comparison values. RFC 7644 section 3.4.2.2 wants JSON strings, but the Microsoft
 * collection sends `userName sw O` and `meta.Created gt 2015-10-10T14:38:21.8617979-07:00`;
 * a word after a comparison operator that is not a JSON literal is read as a string.
 */
export function quoteBareValues(input: string): string {
  const tokens: string[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < input.length && input[j] !== '"') j += input[j] === '\\' ? 2 : 1;
      tokens.push(input.slice(i, j + 1));
      i = j + 1;
    } else if (/[\s()[\]]/.test(ch)) {
      tokens.push(ch);
      i++;
    } else {
      let j = i;
      while (j < input.length && !/[\s()[\]"]/.test(input[j])) j++;
      tokens.push(input.slice(i, j));
      i = j;
    }
  }
  let previousWord = '';
  return tokens
    .map((token) => {
      if (/^\s$/.test(token)) return token;
      const quote =
        comparison.test(previousWord) &&
        !token.startsWith('"') &&
        !/^[()[\]]$/.test(token) &&
        !literal.test(token);
      previousWord = token;
      return quote ? JSON.stringify(token) : token;
    })
    .join('');
}

/** Parses a filter (RFC 7644 section 3.4.2.2) or throws 400 invalidFilter. */
export function parseFilter(input: string): Filter {
  if (input.trim() === '') throw invalidFilter('The filter is empty');
  try {
    return parse(quoteBareValues(input));
  } catch (error) {
    throw invalidFilter(`The filter cannot be parsed: ${(error as Error).message}`);
  }
}
