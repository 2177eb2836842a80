import { type ModelError, ModelValidationError } from '../errors.ts';
import { buildCube } from './cube.ts';
import { resolveExtends } from './extends.ts';
import type { ModelFile } from './files.ts';
import { checkHierarchies } from './hierarchies.ts';
import { type Isolation, isolateModel } from './isolate.ts';
import { checkMultiStage } from './multi-stage.ts';
import { checkRollupJoins } from './pre-aggregations.ts';
import { isRecord, memberList, normalizeKeys, type Raw, str } from './raw.ts';
import { ErrorReporter, locate } from './reporter.ts';
import { jsDocument } from './sandbox/locate.ts';
import {
  evaluateJsFiles,
  type JinjaRendering,
  type JsEvaluation,
  type JsSandboxOptions,
  renderJinjaFiles,
} from './sandbox/run.ts';
import type { NameIndex } from './template.ts';
import type { Cube, Model, SourceLocation, View } from './types.ts';
import { validateCubes } from './validate.ts';
import { buildViews } from './view.ts';
import { parseYamlFile } from './yaml.ts';

export type { ModelFile };

export interface CompileModelOptions {
  /** JavaScript files evaluated beforehand (compileModelAsync does it), by path. */
  readonly evaluated?: ReadonlyMap<string, JsEvaluation>;
  /** Jinja templates rendered beforehand (compileModelAsync does it), by path. */
  readonly rendered?: ReadonlyMap<string, JinjaRendering>;
}

export interface CompileModelResult {
  readonly model: Model;
  readonly errors: readonly ModelError[];
  /** The healthy part of the model, and what each error disables (isolate.ts, issue 15). */
  readonly isolation: Isolation;
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
  checkRollupJoins(cubes, reporter);
  checkHierarchies(cubes, reporter);
  const views = new Map<string, View>();
  for (const { raw, loc } of rawViews) {
    for (const view of buildViews(raw, cubes, loc, reporter)) {
      // a split view (`<view>_<cube>`) must not take the name of another cube or view
      if (names.has(view.name) && view.name !== raw.name)
        reporter.error(view.loc, view.name, null, `Split view name ${view.name} is already taken`);
      else {
        names.add(view.name);
        views.set(view.name, view);
      }
    }
  }
  checkMultiStage(cubes, views, reporter);

  const model = Object.freeze({ cubes, views });
  return { model, errors: reporter.errors, isolation: isolateModel(model, reporter.errors, files) };
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
  let text = file.content;
  if (isJinja(file)) {
    const rendered = options.rendered?.get(file.path);
    if (!rendered) {
      reporter.error(
        { file: file.path, line: null },
        null,
        null,
        'Jinja templates are rendered by compileModelAsync',
      );
      return null;
    }
    if (rendered.error || rendered.text === null) {
      reporter.error(
        { file: file.path, line: rendered.error?.line ?? null },
        null,
        null,
        rendered.error?.message ?? 'Jinja: rendering failed',
      );
      return null;
    }
    text = rendered.text;
  } else if (!/\.ya?ml$/i.test(file.path)) {
    // Files a Jinja template imports (`macros.jinja`) are templates, not models.
    if (/\.jinja$/i.test(file.path)) return null;
    reporter.error(
      { file: file.path, line: null },
      null,
      null,
      'Model files are YAML (.yml, .yaml, with or without Jinja), or JavaScript (.js)',
    );
    return null;
  }
  // Lines of a rendered template are the rendered text's, which loops and macros may shift.
  const parsed = parseYamlFile(file.path, text);
  for (const e of parsed.errors)
    reporter.error({ file: file.path, line: e.line }, null, null, `YAML: ${e.message}`);
  return parsed.value;
}

export function isJavaScript(path: string): boolean {
  return /\.js$/i.test(path);
}

/**
 * A YAML model with Jinja templates, as Cube tells them apart: a `.yml.jinja` / `.yaml.jinja`
 * file, or a YAML file holding `{{ }}`, `{% %}` or `{# #}`.
 */
export function isJinja(file: ModelFile): boolean {
  if (/\.ya?ml\.jinja$/i.test(file.path)) return true;
  return /\.ya?ml$/i.test(file.path) && /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}|\{#[\s\S]*?#\}/.test(file.content);
}

export interface CompileModelAsyncOptions {
  /** The sandbox JavaScript model files and Jinja templates run in (sandbox/run.ts). */
  readonly javascript?: JsSandboxOptions;
}

/**
 * Every model format: JavaScript files are evaluated and Jinja templates rendered in the sandbox
 * first (worker threads, only when there are some), then everything compiles as compileModel does.
 */
export async function compileModelAsync(
  files: readonly ModelFile[],
  options: CompileModelAsyncOptions = {},
): Promise<CompileModelResult> {
  const js = files.filter((f) => isJavaScript(f.path));
  const jinja = files.filter(isJinja);
  const templates = files.filter((f) => isJinja(f) || /\.jinja$/i.test(f.path));
  const [evaluated, rendered] = await Promise.all([
    js.length > 0 ? evaluateJsFiles(js, options.javascript) : new Map(),
    jinja.length > 0 ? renderJinjaFiles(jinja, templates, options.javascript) : new Map(),
  ]);
  return compileModel(files, { evaluated, rendered });
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
