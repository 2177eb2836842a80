import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

/** TESSERA_REDIS_PREFIX: installations sharing one Redis keep their keys and channels apart. */
describe('TESSERA_REDIS_PREFIX', () => {
  const prefix = (value?: string) =>
    loadConfig(value === undefined ? {} : { TESSERA_REDIS_PREFIX: value }).redisPrefix;

  it('defaults to tessera, and takes a name of letters, digits, _ . and -', () => {
    expect(prefix()).toBe('tessera');
    expect(prefix('')).toBe('tessera');
    expect(prefix('eu-prod_2.a')).toBe('eu-prod_2.a');
  });

  it('refuses a name that would reach into another key space, naming the variable', () => {
    // a colon or a glob would let one installation's keys and patterns match another's
    for (const bad of ['a:b', 'prod*', 'has space', 'x'.repeat(65)])
      expect(() => prefix(bad), bad).toThrow(/TESSERA_REDIS_PREFIX must be 1 to 64 letters/);
  });
});
