import { type ModelError, ModelValidationError } from '../errors.ts';
import { buildCube } from './cube.ts';
import { resolveExtends } from './extends.ts';
import type { ModelFile } from './files.ts';
import { evaluateJsFiles, type JsEvaluation, type JsSandboxOptions } from './javascript/evaluate.ts';
import { jsDocument } from './javascript/locate.ts';
import { isRecord, memberList, normalizeKeys, type Raw, str } from './raw.ts';
import { ErrorReporter, locate } from './reporter.ts';
import type { NameIndex } from './template.ts';
import type { Cube, Model, SourceLocation, View } from './types.ts';
import { validateCubes } from './validate.ts';
import { buildView } from './view.ts';
import { parseYamlFile } from './yaml.ts';

export type { ModelFile };

export interface CompileModelOptions {
  /** JavaScript files evaluated beforehand (compileModelAsync does it), by path. */
  readonly evaluated?: ReadonlyMap<string, JsEvaluation>;
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
export function compileModel(
  files: readonly ModelFile[],
  options: CompileModelOptions = {},
): CompileModelResult {
  const reporter = new ErrorReporter();
  const rawCubes = new Map<string, { raw: Raw; loc: SourceLocation }>();
  const rawViews: { raw: Raw; loc: SourceLocation }[] = [];
  const names = new Set<string>();

  for (const file of files) {
    const fileLoc = { file: file.path, line: null };
    const value = documentOf(file, options, reporter);
    if (value === null) continue;
    const doc = normalizeKeys(value);
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

/** The file's `{cubes, views}` as written, or null when it has none (its errors reported). */
function documentOf(file: ModelFile, options: CompileModelOptions, reporter: ErrorReporter): unknown {
  if (isJavaScript(file.path)) {
    const evaluated = options.evaluated?.get(file.path);
    if (!evaluated) {
      reporter.error(
        { file: file.path, line: null },
        null,
        null,
        'JavaScript model files are evaluated by compileModelAsync',
      );
      return null;
    }
    if (evaluated.error) {
      reporter.error({ file: file.path, line: evaluated.error.line }, null, null, evaluated.error.message);
      return null;
    }
    return jsDocument(file.path, file.content, evaluated.definitions);
  }
  if (!/\.ya?ml$/i.test(file.path)) {
    reporter.error(
      { file: file.path, line: null },
      null,
      null,
      'Model files are YAML (.yml, .yaml) or JavaScript (.js)',
    );
    return null;
  }
  const parsed = parseYamlFile(file.path, file.content);
  for (const e of parsed.errors)
    reporter.error({ file: file.path, line: e.line }, null, null, `YAML: ${e.message}`);
  return parsed.value;
}

export function isJavaScript(path: string): boolean {
  return /\.js$/i.test(path);
}

export interface CompileModelAsyncOptions {
  /** The sandbox JavaScript model files run in (javascript/evaluate.ts). */
  readonly javascript?: JsSandboxOptions;
}

/**
 * Every model format: JavaScript files are evaluated in the sandbox first (a worker thread, only
 * when there are some), then everything compiles as compileModel does.
 */
export async function compileModelAsync(
  files: readonly ModelFile[],
  options: CompileModelAsyncOptions = {},
): Promise<CompileModelResult> {
  const js = files.filter((f) => isJavaScript(f.path));
  const evaluated = js.length > 0 ? await evaluateJsFiles(js, options.javascript) : new Map();
  return compileModel(files, { evaluated });
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
