import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ModelFile } from '../files.ts';

/**
 * What model files run, run in a sandbox (worker.cjs): a child process with a small heap, no
 * environment, and Node's permission model (it may read its own script and the nunjucks bundle,
 * nothing else, and start no process or thread), then a fresh node:vm context per file with no
 * host objects, bounded in time. A process rather than a worker thread: a thread that runs out
 * of heap in one large allocation takes the whole process down with it.
 * - Cube's JavaScript model files (`cube()` and `view()` in `.js` files, see
 *   https://cube.dev/docs/product/data-modeling/syntax#model-files): what comes back is plain
 *   data, each definition with its SQL written as Cube's YAML templates (`{CUBE}.id =
 *   {users.id}`), so that JavaScript and YAML models share one compiler.
 * - YAML files with Jinja templates (https://cube.dev/docs/product/data-modeling/dynamic/jinja),
 *   rendered by nunjucks, a Jinja-compatible engine, to the YAML text the compiler reads.
 *   nunjucks compiles templates to JavaScript, so it runs in the sandbox too.
 */
export interface JsDefinition {
  readonly kind: 'cube' | 'view';
  readonly name: string;
  /** Line of the `cube(` / `view(` call. */
  readonly line: number | null;
  readonly definition: Record<string, unknown>;
}

export interface JsEvaluation {
  readonly definitions: readonly JsDefinition[];
  /** Why the file could not be evaluated (syntax, a forbidden global, time, memory), with its line. */
  readonly error: { readonly line: number | null; readonly message: string } | null;
}

export interface JinjaRendering {
  /** The YAML text; null when rendering failed. */
  readonly text: string | null;
  readonly error: { readonly line: number | null; readonly message: string } | null;
}

export interface JsSandboxOptions {
  /** Time one file may take, its definitions' functions or its template included. Default 1000 ms. */
  readonly timeoutMs?: number;
  /** Heap of the evaluating process. Default 64 MB. */
  readonly memoryMb?: number;
  /** `COMPILE_CONTEXT` as model files read it; a JavaScript file reading a key it lacks is refused. */
  readonly compileContext?: Record<string, unknown>;
}

const WORKER = fileURLToPath(new URL('./worker.cjs', import.meta.url));
/** A new process needs time to start on a loaded machine before its first file. */
const STARTUP_MS = 10_000;
const MAX_OUTPUT_CHARS = 10_000_000;

/** The browser build: one script with no `require`, to load into a vm context. */
const NUNJUCKS = createRequire(import.meta.url).resolve('nunjucks/browser/nunjucks.min.js');

interface Job {
  path: string;
  content: string;
  kind: 'js' | 'jinja';
}

export async function evaluateJsFiles(
  files: readonly ModelFile[],
  options: JsSandboxOptions = {},
): Promise<Map<string, JsEvaluation>> {
  const jobs = files.map((f) => ({ path: f.path, content: f.content, kind: 'js' as const }));
  const results = await runJobs(jobs, options, {});
  return new Map([...results].map(([path, r]) => [path, typeof r === 'string' ? failed(r) : parseResult(r)]));
}

/**
 * Renders Jinja templates; `templates` are the files a template may `import` or `include`, under
 * their path and every shorter path after a `/` (`model/macros.jinja`, `macros.jinja`).
 */
export async function renderJinjaFiles(
  files: readonly ModelFile[],
  templates: readonly ModelFile[],
  options: JsSandboxOptions = {},
): Promise<Map<string, JinjaRendering>> {
  const named: Record<string, string> = {};
  for (const t of templates) {
    const segments = t.path.split('/');
    for (let i = 0; i < segments.length; i++) {
      const name = segments.slice(i).join('/');
      if (!(name in named)) named[name] = t.content;
    }
  }
  const jobs = files.map((f) => ({ path: f.path, content: f.content, kind: 'jinja' as const }));
  const results = await runJobs(jobs, options, { templates: named, nunjucksPath: NUNJUCKS });
  const out = new Map<string, JinjaRendering>();
  for (const [path, r] of results) {
    const o = (r ?? {}) as Record<string, unknown>;
    if (typeof r === 'string') out.set(path, { text: null, error: { line: null, message: `Jinja: ${r}` } });
    else if (o.ok === true && typeof o.text === 'string') out.set(path, { text: o.text, error: null });
    else out.set(path, { text: null, error: errorOf(o) });
  }
  return out;
}

/** Each job's answer from the process, or why the process gave none (time, memory). */
async function runJobs(
  jobs: readonly Job[],
  options: JsSandboxOptions,
  extra: Record<string, unknown>,
): Promise<Map<string, unknown>> {
  const settings = {
    timeoutMs: options.timeoutMs ?? 1000,
    compileContext: options.compileContext ?? { securityContext: {} },
    maxOutputChars: MAX_OUTPUT_CHARS,
    ...extra,
  };
  const memoryMb = options.memoryMb ?? 64;
  const results = new Map<string, unknown>();
  let next = 0;
  // One process runs the files in turn; a file that kills it (heap, time) is reported and the
  // rest go to a new process.
  while (next < jobs.length) {
    const batch = jobs.slice(next);
    const done = await runBatch(batch, settings, memoryMb, (index, result) => {
      results.set(batch[index].path, result);
    });
    next += done.count;
    if (done.failure !== null && next < jobs.length) {
      results.set(jobs[next].path, done.failure);
      next++;
    }
  }
  return results;
}

const failed = (message: string): JsEvaluation => ({ definitions: [], error: { line: null, message } });

function errorOf(r: Record<string, unknown>) {
  return {
    line: typeof r.line === 'number' && Number.isInteger(r.line) ? r.line : null,
    message: typeof r.message === 'string' ? r.message : 'Evaluation failed',
  };
}

function runBatch(
  files: readonly Job[],
  settings: { timeoutMs: number },
  memoryMb: number,
  onResult: (index: number, result: unknown) => void,
): Promise<{ count: number; failure: string | null }> {
  return new Promise((resolve) => {
    let count = 0;
    let settled = false;
    let child: ChildProcess;
    try {
      child = fork(WORKER, [], {
        execArgv: [
          `--max-old-space-size=${memoryMb}`,
          '--experimental-permission',
          `--allow-fs-read=${WORKER}`,
          `--allow-fs-read=${NUNJUCKS}`,
        ],
        env: {},
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
        serialization: 'json',
      });
    } catch {
      resolve({ count, failure: 'Evaluation failed' });
      return;
    }
    const finish = (failure: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve({ count, failure });
    };
    // Inside the process each file is bounded by the vm timeout; this bounds what the vm cannot
    // interrupt (a process that stops answering).
    const perFile = settings.timeoutMs * 3 + 5000;
    const late = () => finish(`Evaluation took longer than ${settings.timeoutMs} ms`);
    let timer = setTimeout(late, STARTUP_MS + perFile);
    child.on('message', (message: { index: number; result: unknown }) => {
      if (settled || message?.index !== count) return;
      onResult(message.index, message.result);
      count++;
      clearTimeout(timer);
      if (count === files.length) return finish(null);
      timer = setTimeout(late, perFile);
    });
    child.on('error', () => finish('Evaluation failed'));
    // V8 aborts a process out of heap (SIGABRT, or exit code 134 where a shell reports it).
    child.on('exit', (code, signal) =>
      finish(
        count === files.length
          ? null
          : signal === 'SIGABRT' || code === 134
            ? `Evaluation used more than ${memoryMb} MB of memory`
            : 'Evaluation failed',
      ),
    );
    child.send({ files, settings });
  });
}

/** The process's answer, checked: only what the shape allows gets through. */
function parseResult(value: unknown): JsEvaluation {
  const r = (value ?? {}) as Record<string, unknown>;
  if (r.ok !== true) return { definitions: [], error: errorOf(r) };
  const definitions: JsDefinition[] = [];
  for (const d of Array.isArray(r.definitions) ? r.definitions : []) {
    const kind = d?.kind;
    if ((kind !== 'cube' && kind !== 'view') || typeof d.name !== 'string') continue;
    const definition = plain(d.definition);
    if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) continue;
    definitions.push({
      kind,
      name: d.name,
      line: typeof d.line === 'number' && Number.isInteger(d.line) ? d.line : null,
      definition: definition as Record<string, unknown>,
    });
  }
  return { definitions, error: null };
}

/** A deep copy keeping JSON values only, without `__proto__` keys. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== '__proto__') out[k] = plain(v);
    return out;
  }
  return value;
}
