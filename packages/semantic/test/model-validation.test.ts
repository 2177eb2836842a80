import { describe, expect, it } from 'vitest';
import { compileModel, compileModelOrThrow, ModelValidationError } from '../src/index.ts';
import { fixtureFiles } from './fixtures/model.ts';

const broken = `cubes:
  - name: orders
    sql_table: orders
    joins:
      - name: nowhere
        relationship: many_to_one
        sql: "{CUBE}.x = {nowhere}.id"
      - name: users
        relationship: sideways
        sql: "{CUBE}.user_id = {users.id}"
    measures:
      - name: count
        type: count
      - name: count
        type: sum
        sql: amount
      - name: bad
        type: percentile
        sql: amount
      - name: ref
        type: sum
        sql: "{orders.nope}"
    dimensions:
      - name: created_at
        sql: created_at
        type: time
        granularities:
          - name: odd
            interval: 3 fortnights
  - name: users
    extends: admins
    measures:
      - name: c
        type: count
  - name: admins
    extends: users
    sql_table: admins
  - name: nosql
    dimensions:
      - name: id
        sql: id
        type: number
views:
  - name: v
    cubes:
      - join_path: orders
        includes: [count, missing]
`;

describe('model validation', () => {
  it('loads the fixture model without errors', () => {
    expect(compileModel(fixtureFiles()).errors).toEqual([]);
  });

  it('reports every error with file, line, cube and member', () => {
    const { errors } = compileModel([{ path: 'broken.yml', content: broken }]);
    const found = errors.map((e) => `${e.file}:${e.line} ${e.cube}.${e.member}: ${e.message}`);
    const expectError = (line: number, cube: string, member: string | null, text: string) =>
      expect(found).toContainEqual(
        expect.stringMatching(new RegExp(`^broken.yml:${line} ${cube}\\.${member}: .*${text}`)),
      );
    expectError(5, 'orders', null, 'Join to unknown cube nowhere');
    expectError(8, 'orders', null, "unknown relationship 'sideways'");
    expectError(14, 'orders', 'count', 'Duplicate member name orders.count');
    expectError(17, 'orders', 'bad', "Measure type 'percentile'");
    expectError(22, 'orders', 'ref', 'orders.nope does not exist');
    expectError(28, 'orders', 'created_at', "invalid interval '3 fortnights'");
    expect(found.some((f) => /Cycle in extends/.test(f))).toBe(true);
    expectError(38, 'nosql', null, 'Cube needs sql_table or sql');
    expectError(46, 'v', 'missing', 'View includes unknown member orders.missing');
    expect(errors.length).toBeGreaterThanOrEqual(9);
  });

  it('throws one ModelValidationError holding all errors on request', () => {
    expect(() => compileModelOrThrow([{ path: 'broken.yml', content: broken }])).toThrow(
      ModelValidationError,
    );
  });

  it('reports YAML syntax errors and non-YAML files', () => {
    const { errors } = compileModel([
      { path: 'a.yml', content: 'cubes:\n  - name: x\n   bad: [' },
      { path: 'b.js', content: 'cube(`x`, {})' },
    ]);
    expect(errors.map((e) => e.file)).toEqual(expect.arrayContaining(['a.yml', 'b.js']));
  });

  it('accepts camelCase keys, object-form members and extends', () => {
    const { model, errors } = compileModel([
      {
        path: 'x.yml',
        content: `cubes:
  - name: base
    sqlTable: t
    measures:
      count: { type: count }
    dimensions:
      id: { sql: id, type: number, primaryKey: true }
  - name: child
    extends: base
    measures:
      - name: total
        type: sum
        sql: "\${CUBE}.v"
`,
      },
    ]);
    expect(errors).toEqual([]);
    const child = model.cubes.get('child')!;
    expect([...child.measures.keys()].sort()).toEqual(['count', 'total']);
    expect(child.primaryKeys.map((d) => d.name)).toEqual(['id']);
    expect(child.sqlTable).toBe('t');
  });
});
