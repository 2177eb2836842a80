import { describe, expect, it } from 'vitest';
import { inlineParams } from './snowflake-literals.ts';

describe('Snowflake parameters inlined as literals', () => {
  it('replaces each $n by its value, quoting text with its backslashes and quotes escaped', () => {
    expect(inlineParams('SELECT $1, $2, $1', ["it's \\ here", 2.5])).toBe(
      "SELECT 'it''s \\\\ here', 2.5, 'it''s \\\\ here'",
    );
  });

  it('leaves a $n inside quoted text, a dollar-quoted string or a comment as the model wrote it', () => {
    const sql = [
      'SELECT \'$1 in quotes\', "$1col", $$costs $1 or $2$$ AS price -- $1 here',
      '/* $2 */ // and $1 there',
      'WHERE a = $1 AND b = $2',
    ].join('\n');
    expect(inlineParams(sql, ['x', 7])).toBe(
      [
        'SELECT \'$1 in quotes\', "$1col", $$costs $1 or $2$$ AS price -- $1 here',
        '/* $2 */ // and $1 there',
        "WHERE a = 'x' AND b = 7",
      ].join('\n'),
    );
  });

  it('refuses a placeholder without a value rather than sending it', () => {
    expect(() => inlineParams('SELECT $3', [1])).toThrow('No parameter for placeholder $3');
  });
});
