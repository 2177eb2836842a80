import { describe, expect, it } from 'vitest';
import { compileModel, type ModelFile } from '../src/index.ts';

/**
 * Issue 15: a model error makes only its cube unavailable, plus whatever depends on it
 * (model/isolate.ts); the healthy cubes keep serving.
 */
const good = `cubes:
  - name: good
    sql_table: orders
    joins:
      - name: broken
        relationship: many_to_one
        sql: "{CUBE}.id = {broken.id}"
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
`;
const broken = `cubes:
  - name: broken
    sql_table: orders
    measures:
      - name: count
        type: count
      - name: weekly
        type: number
        sql: "{count}"
        multi_stage: true
        rolling_window:
          trailing: 7 day
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
`;
const file = (path: string, content: string): ModelFile => ({ path, content });

describe('model isolation', () => {
  it('leaves a model without errors as it is', () => {
    const { model, isolation } = compileModel([
      file('good.yml', good.replace(/ {4}joins:[\s\S]*?(?= {4}measures)/, '')),
      file('broken.yml', broken.replace(/ {6}- name: weekly[\s\S]*?trailing: 7 day\n/, '')),
    ]);
    expect(isolation.model).toBe(model);
    expect(isolation.unavailable.size).toBe(0);
    expect(isolation.errors).toEqual([]);
  });

  it('takes out the cube with an unsupported construct, and only the join to it', () => {
    const { errors, isolation } = compileModel([file('good.yml', good), file('broken.yml', broken)]);
    expect(errors).toHaveLength(1);
    expect([...isolation.model.cubes.keys()]).toEqual(['good']);
    expect([...isolation.model.cubes.get('good')!.joins.keys()]).toEqual([]);
    const u = isolation.unavailable.get('broken')!;
    expect(u).toMatchObject({ kind: 'cube', through: null });
    expect(u.errors[0]).toMatchObject({ file: 'broken.yml', line: 11, cube: 'broken', member: 'weekly' });
    expect(u.errors[0]!.message).toBe(
      'rolling_window on a multi-stage measure of type number is not supported',
    );
    expect(isolation.errors).toEqual([{ error: errors[0], cubes: ['broken'] }]);
  });

  it('follows member SQL, views and chains of dependants', () => {
    const dependants = `cubes:
  - name: uses_broken
    sql_table: orders
    measures:
      - name: ratio
        type: number
        sql: "{broken.count} / 2"
    dimensions:
      - name: id
        sql: id
        type: number
  - name: uses_uses
    sql_table: orders
    dimensions:
      - name: x
        sql: "{uses_broken.id}"
        type: number
views:
  - name: over_broken
    cubes:
      - join_path: good.broken
        includes: [count]
  - name: over_good
    cubes:
      - join_path: good
        includes: [count]
`;
    const { errors, isolation } = compileModel([
      file('good.yml', good),
      file('broken.yml', broken),
      file('dependants.yml', dependants),
    ]);
    const root = errors.find((e) => e.cube === 'broken')!;
    expect([...isolation.model.cubes.keys()]).toEqual(['good']);
    expect([...isolation.model.views.keys()]).toEqual(['over_good']);
    expect(isolation.unavailable.get('uses_broken')).toMatchObject({
      kind: 'cube',
      through: 'broken',
      errors: [root],
    });
    expect(isolation.unavailable.get('uses_uses')).toMatchObject({ through: 'uses_broken', errors: [root] });
    expect(isolation.unavailable.get('over_broken')).toMatchObject({
      kind: 'view',
      through: 'broken',
      errors: [root],
    });
    expect(isolation.errors.find((d) => d.error === root)!.cubes.toSorted()).toEqual(
      ['broken', 'over_broken', 'uses_broken', 'uses_uses'].sort(),
    );
  });

  it('a bad member reference disables its own cube, not the one it names', () => {
    const bad = `cubes:
  - name: bad_ref
    sql_table: orders
    measures:
      - name: n
        type: number
        sql: "{good.no_such_member}"
`;
    const { isolation } = compileModel([
      file('good.yml', good),
      file('broken.yml', broken),
      file('bad.yml', bad),
    ]);
    expect(isolation.model.cubes.has('good')).toBe(true);
    const u = isolation.unavailable.get('bad_ref')!;
    expect(u.errors[0]).toMatchObject({ file: 'bad.yml', cube: 'bad_ref', member: 'n' });
    expect(u.errors[0]!.line).toBeGreaterThan(0);
  });

  it('a YAML syntax error disables the cubes that file declares, read from its text', () => {
    const unparsable = `cubes:
  - name: lost
    sql_table: orders
    measures:
      - name: count
        type: count
  - name: "also_lost"
    dimensions: [ unclosed
views:
  -   name: lost_view
`;
    const joinsLost = good.replace(/broken/g, 'lost');
    const { errors, isolation } = compileModel([file('good.yml', joinsLost), file('syntax.yml', unparsable)]);
    // The join to a cube of the unparsable file is reported to the author, but only that join is
    // dropped: its cube keeps serving.
    const join = errors.find((e) => e.file === 'good.yml')!;
    expect(join).toMatchObject({ cube: 'good', message: 'Join to unknown cube lost' });
    expect(isolation.errors.find((d) => d.error === join)!.cubes).toEqual([]);
    expect([...isolation.model.cubes.keys()]).toEqual(['good']);
    expect([...isolation.unavailable.keys()].sort()).toEqual(['also_lost', 'lost', 'lost_view']);
    const lost = isolation.unavailable.get('lost')!;
    expect(lost.kind).toBe('unknown');
    expect(lost.errors[0]).toMatchObject({ file: 'syntax.yml', cube: null });
    expect(lost.errors[0]!.message).toMatch(/^YAML: /);
  });

  it('an error that names no cube disables every cube of its file', () => {
    const mixed = `cubes:
  - name: sibling
    sql_table: orders
    measures:
      - name: count
        type: count
  - name: 1nvalid
    sql_table: orders
`;
    const { isolation } = compileModel([
      file('good.yml', good),
      file('broken.yml', broken),
      file('mixed.yml', mixed),
    ]);
    expect(isolation.model.cubes.has('good')).toBe(true);
    expect(isolation.unavailable.get('sibling')!.errors[0]).toMatchObject({ file: 'mixed.yml', line: 7 });
  });
});
