/**
 * Mean compile time per query (normalize + plan + print), over the test query suite.
 * Run: node --import tsx packages/semantic/bench/compile.ts
 */
import { compileQuery, DIALECT_NAMES } from '../src/index.ts';
import { ADMIN, fixtureModel, NOW } from '../test/fixtures/model.ts';
import { queries } from '../test/queries.ts';

const model = fixtureModel();
const list = Object.values(queries);
const rounds = 300;
for (const dialect of DIALECT_NAMES) {
  for (const q of list) compileQuery(model, q, { dialect, securityContext: ADMIN, now: NOW });
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) {
    for (const q of list) compileQuery(model, q, { dialect, securityContext: ADMIN, now: NOW });
  }
  const micros = Number(process.hrtime.bigint() - start) / 1000 / (rounds * list.length);
  console.log(
    `${dialect}: ${micros.toFixed(1)} µs per compile (mean of ${rounds * list.length} over ${list.length} queries)`,
  );
}
