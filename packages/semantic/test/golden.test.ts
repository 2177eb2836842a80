import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type CubeQuery,
  compileModelOrThrow,
  compileQuery,
  DIALECT_NAMES,
  type DialectName,
  type Model,
  UserError,
} from '../src/index.ts';
import { ADMIN, fixtureFiles, fixtureModel, NOW } from './fixtures/model.ts';
import { stageQueries, stagesModelFile } from './golden-stages.ts';
import { queries } from './queries.ts';

// Golden SQL per dialect: SQL changes show up in review. UPDATE_GOLDEN=1 rewrites the files.
const dir = join(import.meta.dirname, 'golden');
const update = process.env.UPDATE_GOLDEN === '1';
const model = fixtureModel();
const stagesModel = compileModelOrThrow([...fixtureFiles(), stagesModelFile]);
const suites: [Model, Record<string, CubeQuery>][] = [
  [model, queries],
  [stagesModel, stageQueries],
];
/**
 * Dialects that print another's SQL, checked against that one's files rather than copies of them,
 * with a file of their own only where they differ: Athena engine version 3 is Trino's SQL
 * (dialect/athena.ts); Presto is too, but refuses named time zones (dialect/presto.ts).
 */
const printsAs: Partial<Record<DialectName, DialectName>> = { athena: 'trino', presto: 'trino' };

/** The golden file of a query in a dialect: its own, else the one of the dialect it prints as. */
function goldenFile(name: string, dialect: DialectName, text: string): string {
  const own = join(dir, `${name}.${dialect}.golden.sql`);
  const base = printsAs[dialect];
  const shared = base ? join(dir, `${name}.${base}.golden.sql`) : null;
  if (update) {
    if (shared && existsSync(shared) && readFileSync(shared, 'utf8') === text) rmSync(own, { force: true });
    else writeFileSync(own, text);
  }
  return shared && !existsSync(own) ? shared : own;
}

describe('golden SQL', () => {
  for (const [model, named] of suites)
    for (const [name, query] of Object.entries(named)) {
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
          const file = goldenFile(name, dialect, text);
          expect(existsSync(file), `missing ${file}: run with UPDATE_GOLDEN=1`).toBe(true);
          expect(text).toBe(readFileSync(file, 'utf8'));
        });
      }
    }
});
