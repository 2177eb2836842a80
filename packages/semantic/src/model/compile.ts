import { type ModelError, ModelValidationError } from '../errors.ts';
import { buildCube } from './cube.ts';
import { resolveExtends } from './extends.ts';
import { isRecord, memberList, normalizeKeys, type Raw, str } from './raw.ts';
import { ErrorReporter, locate } from './reporter.ts';
import type { NameIndex } from './template.ts';
import type { Cube, Model, SourceLocation, View } from './types.ts';
import { validateCubes } from './validate.ts';
import { buildView } from './view.ts';
import { parseYamlFile } from './yaml.ts';

export interface ModelFile {
  readonly path: string;
  readonly content: string;
}

export interface CompileModelResult {
  readonly model: Model;
  readonly errors: readonly ModelError[];
}

/**
 * Pipeline, after Cube's PrepareCompiler: parse YAML -> normalise keys -> merge `extends` ->
 * index member names -> build cubes (parsing SQL templates) -> cross-checks -> build views.
 * Every stage reports into one ErrorReporter and carries on, so all errors come out together.
 */
export function compileModel(files: readonly ModelFile[]): CompileModelResult {
  const reporter = new ErrorReporter();
  const rawCubes = new Map<string, { raw: Raw; loc: SourceLocation }>();
  const rawViews: { raw: Raw; loc: SourceLocation }[] = [];
  const names = new Set<string>();

  for (const file of files) {
    const fileLoc = { file: file.path, line: null };
    if (!/\.ya?ml$/i.test(file.path)) {
      reporter.error(fileLoc, null, null, 'Only YAML model files (.yml, .yaml) are supported');
      continue;
    }
    const parsed = parseYamlFile(file.path, file.content);
    for (const e of parsed.errors)
      reporter.error({ file: file.path, line: e.line }, null, null, `YAML: ${e.message}`);
    if (parsed.value === null) continue;
    const doc = normalizeKeys(parsed.value);
    if (!isRecord(doc)) {
      reporter.error(fileLoc, null, null, 'A model file must be a mapping with cubes and/or views');
      continue;
    }
    for (const [key, target] of [
      ['cubes', 'cube'],
      ['views', 'view'],
    ] as const) {
      for (const raw of memberList(doc[key])) {
        const loc = locate(raw, fileLoc);
        const name = str(raw.name);
        if (name === null || !/^[A-Za-z_]\w*$/.test(name)) {
          reporter.error(loc, null, null, `Invalid or missing ${target} name: ${String(raw.name)}`);
          continue;
        }
        if (names.has(name)) {
          reporter.error(loc, name, null, `Duplicate cube or view name ${name}`);
          continue;
        }
        names.add(name);
        if (target === 'cube') rawCubes.set(name, { raw, loc });
        else rawViews.push({ raw, loc });
      }
    }
  }

  const merged = resolveExtends(rawCubes, reporter);
  const index: NameIndex = { cubes: indexNames(merged) };
  const cubes = new Map<string, Cube>();
  for (const [name, raw] of merged) {
    cubes.set(name, buildCube(raw, { cube: name, index, reporter, loc: rawCubes.get(name)!.loc }));
  }
  validateCubes(cubes, reporter);
  const views = new Map<string, View>();
  for (const { raw, loc } of rawViews) views.set(String(raw.name), buildView(raw, cubes, loc, reporter));

  return { model: Object.freeze({ cubes, views }), errors: reporter.errors };
}

/** Like compileModel, but throws one ModelValidationError holding every error. */
export function compileModelOrThrow(files: readonly ModelFile[]): Model {
  const { model, errors } = compileModel(files);
  if (errors.length > 0) throw new ModelValidationError(errors);
  return model;
}

function indexNames(merged: ReadonlyMap<string, Raw>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [name, raw] of merged) {
    const set = new Set<string>();
    for (const key of ['measures', 'dimensions', 'segments']) {
      for (const m of memberList(raw[key])) set.add(String(m.name));
    }
    out.set(name, set);
  }
  return out;
}
