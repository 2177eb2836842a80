import { Worker } from 'node:worker_threads';
import type { ModelFile } from '../files.ts';

/**
 * Cube's JavaScript model files (`cube()` and `view()` in `.js` files, see
 * https://cube.dev/docs/product/data-modeling/syntax#model-files) evaluated in a sandbox
 * (worker.cjs): a worker thread with a small heap and no environment, a fresh node:vm context per
 * file with no host objects, bounded in time. What comes back is plain data: each definition with
 * its SQL written as Cube's YAML templates (`{CUBE}.id = {users.id}`), so that JavaScript and
 * YAML models share one compiler.
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

export interface JsSandboxOptions {
  /** Time one file may take, its definitions' functions included. Default 1000 ms. */
  readonly timeoutMs?: number;
  /** Heap of the evaluating thread. Default 64 MB. */
  readonly memoryMb?: number;
  /** `COMPILE_CONTEXT` as model files read it; reading a key it lacks is an error. */
  readonly compileContext?: Record<string, unknown>;
}

const WORKER = new URL('./worker.cjs', import.meta.url);
/** A new thread needs time to start on a loaded machine before its first file. */
const STARTUP_MS = 10_000;
const MAX_OUTPUT_CHARS = 10_000_000;

export async function evaluateJsFiles(
  files: readonly ModelFile[],
  options: JsSandboxOptions = {},
): Promise<Map<string, JsEvaluation>> {
  const settings = {
    timeoutMs: options.timeoutMs ?? 1000,
    compileContext: options.compileContext ?? { securityContext: {} },
    maxOutputChars: MAX_OUTPUT_CHARS,
  };
  const memoryMb = options.memoryMb ?? 64;
  const results = new Map<string, JsEvaluation>();
  let next = 0;
  // One thread evaluates the files in turn; a file that kills it (heap, time) is reported and
  // the rest go to a new thread.
  while (next < files.length) {
    const batch = files.slice(next).map((f) => ({ path: f.path, content: f.content }));
    const done = await runBatch(batch, settings, memoryMb, (index, result) => {
      results.set(batch[index].path, parseResult(result));
    });
    next += done.count;
    if (done.failure !== null && next < files.length) {
      results.set(files[next].path, { definitions: [], error: { line: null, message: done.failure } });
      next++;
    }
  }
  return results;
}

function runBatch(
  files: { path: string; content: string }[],
  settings: { timeoutMs: number; compileContext: unknown; maxOutputChars: number },
  memoryMb: number,
  onResult: (index: number, result: unknown) => void,
): Promise<{ count: number; failure: string | null }> {
  return new Promise((resolve) => {
    let count = 0;
    let settled = false;
    const worker = new Worker(WORKER, {
      workerData: { files, settings },
      env: {},
      execArgv: [],
      argv: [],
      stdout: true,
      stderr: true,
      resourceLimits: {
        maxOldGenerationSizeMb: memoryMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.floor(memoryMb / 4)),
        codeRangeSizeMb: 16,
        stackSizeMb: 4,
      },
    });
    const finish = (failure: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.terminate().catch(() => undefined);
      resolve({ count, failure });
    };
    // Inside the thread each file is bounded by the vm timeout; this bounds what the vm cannot
    // interrupt (a thread that stops answering).
    const perFile = settings.timeoutMs * 3 + 1000;
    let timer = setTimeout(
      () => finish(`Evaluation took longer than ${settings.timeoutMs} ms`),
      STARTUP_MS + perFile,
    );
    worker.on('message', (message: { index: number; result: unknown }) => {
      onResult(message.index, message.result);
      count = message.index + 1;
      clearTimeout(timer);
      if (count === files.length) return finish(null);
      timer = setTimeout(() => finish(`Evaluation took longer than ${settings.timeoutMs} ms`), perFile);
    });
    worker.on('error', (error: Error & { code?: string }) =>
      finish(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `Evaluation used more than ${memoryMb} MB of memory`
          : 'Evaluation failed',
      ),
    );
    worker.on('exit', () => finish(count === files.length ? null : 'Evaluation failed'));
  });
}

/** The thread's answer, checked: only what the shape allows gets through. */
function parseResult(value: unknown): JsEvaluation {
  const r = (value ?? {}) as Record<string, unknown>;
  if (r.ok !== true) {
    return {
      definitions: [],
      error: {
        line: typeof r.line === 'number' && Number.isInteger(r.line) ? r.line : null,
        message: typeof r.message === 'string' ? r.message : 'Evaluation failed',
      },
    };
  }
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
