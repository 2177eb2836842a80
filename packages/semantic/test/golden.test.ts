import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileQuery, DIALECT_NAMES, type DialectName, UserError } from '../src/index.ts';
import { ADMIN, fixtureModel, NOW } from './fixtures/model.ts';
import { queries } from './queries.ts';

// Golden SQL per dialect: SQL changes show up in review. UPDATE_GOLDEN=1 rewrites the files.
const dir = join(import.meta.dirname, 'golden');
const update = process.env.UPDATE_GOLDEN === '1';
const model = fixtureModel();
/**
 * Dialects that print exactly another's SQL, checked against that one's files rather than copies
 * of them: Athena engine version 3 is Trino's SQL (dialect/athena.ts).
 */
const printsAs: Partial<Record<DialectName, DialectName>> = { athena: 'trino' };

describe('golden SQL', () => {
  for (const [name, query] of Object.entries(queries)) {
    for (const dialect of DIALECT_NAMES) {
      it(`${name} (${dialect})`, () => {
        let text: string;
        try {
          const compiled = compileQuery(model, query, { dialect, securityContext: ADMIN, now: NOW });
          text = `${compiled.sql}\n-- params: ${JSON.stringify(compiled.params)}\n`;
          if (compiled.totalSql) {
            text += `-- total:\n${compiled.totalSql.sql}\n-- total params: ${JSON.stringify(compiled.totalSql.params)}\n`;
          }
        } catch (error) {
          // what a dialect refuses (the data API's 400) is reviewed like SQL: its words
          if (!(error instanceof UserError)) throw error;
          text = `-- refused: ${error.message}\n`;
        }
        const file = join(dir, `${name}.${printsAs[dialect] ?? dialect}.golden.sql`);
        if (update && !printsAs[dialect]) writeFileSync(file, text);
        expect(existsSync(file), `missing ${file}: run with UPDATE_GOLDEN=1`).toBe(true);
        expect(text).toBe(readFileSync(file, 'utf8'));
      });
    }
  }
});
