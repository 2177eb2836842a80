'use strict';
/**
 * Runs what data model files ask to run, for run.ts, one file at a time, each in a fresh node:vm
 * context: Cube JavaScript models (`cube()`, `view()`) and Jinja templates of YAML models (the
 * browser build of nunjucks, loaded into the context). In both:
 * - the context is made from a null-prototype object and given nothing of this process: no
 *   `require`, `process`, timers, `fetch`; `this.constructor.constructor` reaches the context's
 *   own Function (which, for JavaScript models, may not even compile strings);
 * - everything that runs the file's code (the file, functions it leaves in definitions, getters,
 *   template expressions) runs inside `runInContext` calls bounded by `timeout`, microtasks
 *   included; what leaves the context is a JSON string, so this process never touches an object
 *   the file made;
 * - the process itself has no environment variables, a small heap and no permission to read
 *   files other than its own or start anything (run.ts); it reports after each file, so that a
 *   file that exhausts the heap or the time is named.
 * Strict mode throughout: a stack frame of this file gives a model no function to call.
 */
const vm = require('node:vm');
const { readFileSync } = require('node:fs');

/**
 * Runs inside the sandbox, from its source text (`String(prelude)`): its closures belong to the
 * sandbox realm. Free identifiers of a model (`CUBE`, `Users`, `createdAt`, `FILTER_PARAMS`) become
 * references whose text is a marked path, turned into Cube's YAML template syntax (`{Users.id}`)
 * when the definitions are collected; the YAML pipeline then takes them as written.
 */
function prelude(global, settings) {
  const START = '\u0001';
  const END = '\u0002';
  const denied = new Set([
    'process',
    'require',
    'module',
    'exports',
    'fetch',
    'Buffer',
    'setTimeout',
    'setInterval',
    'setImmediate',
    'clearTimeout',
    'clearInterval',
    'clearImmediate',
    'queueMicrotask',
    'XMLHttpRequest',
    'WebSocket',
    '__dirname',
    '__filename',
    'global',
    'importScripts',
    'console',
  ]);
  const refs = new WeakMap();
  const definitions = [];
  const names = new Set();

  const reference = (path) => {
    const token = () => START + path.join('.') + END;
    const proxy = new Proxy(function reference() {}, {
      get(_, prop) {
        if (prop === Symbol.toPrimitive || prop === 'toString' || prop === 'valueOf' || prop === 'toJSON')
          return token;
        if (typeof prop === 'symbol') return undefined;
        return reference(path.concat(prop));
      },
      apply(_, __, args) {
        return START + path.join('.') + '(' + args.map(argument).join(', ') + ')' + END;
      },
      set() {
        throw new TypeError(path.join('.') + ' cannot be assigned');
      },
    });
    refs.set(proxy, path);
    return proxy;
  };
  // Arguments of FILTER_PARAMS / SECURITY_CONTEXT / SQL_UTILS calls, as quoted template text;
  // a callback (`filter((from, to) => ...)`) is called once with placeholders for its parameters
  // and written down as a lambda of the template language (template-scan.ts). A placeholder is a
  // one-element array, so that `values.join(', ')` and `${from}` both give its token.
  const argument = (value) => {
    if (typeof value === 'function' && !refs.has(value)) {
      const count = Math.max(paramsOf(value).length, 1);
      const names = Array.from({ length: count }, (_, i) => '__arg' + i);
      const placeholders = names.map((n) => {
        const token = START + n + END;
        const list = [token];
        list.toString = () => token;
        return list;
      });
      const body = value.apply(undefined, placeholders);
      return '(' + names.join(', ') + ') => ' + JSON.stringify(text(String(body), true));
    }
    if (refs.has(value)) return refs.get(value).join('.');
    // a call's result as a whole (`FILTER_GROUP(FILTER_PARAMS.a.b.filter('x'), ...)`) stays a call
    const whole =
      typeof value === 'string' && value[0] === START && value.indexOf(START, 1) < 0 ? value : null;
    if (whole !== null && whole.indexOf(END) === whole.length - 1) return whole.slice(1, -1);
    return JSON.stringify(text(String(value), true));
  };
  // A string from the model: marked paths become `{path}` in SQL, `path` elsewhere; literal
  // braces of SQL are escaped so that they are not read as references.
  const text = (value, sql) => {
    let out = '';
    let i = 0;
    while (i < value.length) {
      const start = value.indexOf(START, i);
      const literal = start < 0 ? value.slice(i) : value.slice(i, start);
      out += sql ? literal.replace(/\{/g, '\\{') : literal;
      if (start < 0) break;
      const end = value.indexOf(END, start);
      if (end < 0) throw new TypeError('Malformed reference in ' + JSON.stringify(value));
      const path = value.slice(start + 1, end);
      out += sql ? '{' + path + '}' : path;
      i = end + 1;
    }
    return out;
  };
  const paramsOf = (fn) => {
    const source = Function.prototype.toString.call(fn);
    const m =
      /^(?:async\s*)?(?:function\b[^(]*)?\(([^)]*)\)/.exec(source) ||
      /^(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/.exec(source);
    if (!m) return [];
    return m[1]
      .split(',')
      .map((p) => p.trim().replace(/=.*$/, '').trim())
      .filter((p) => /^[A-Za-z_$][\w$]*$/.test(p));
  };
  const SQL_KEYS = new Set(['sql', 'sqlTable', 'sql_table']);
  // Definitions to plain data: references to paths, functions called with references for their
  // parameters (Cube's `sql: (CUBE) => ...`), nothing else than JSON values.
  const toData = (value, key, where, depth) => {
    if (depth > 64) throw new TypeError(where + ': nested too deeply');
    const sql = SQL_KEYS.has(key);
    if (refs.has(value)) return sql ? '{' + refs.get(value).join('.') + '}' : refs.get(value).join('.');
    if (typeof value === 'function') {
      const result = value.apply(
        undefined,
        paramsOf(value).map((p) => reference([p])),
      );
      return toData(result, key, where, depth + 1);
    }
    if (typeof value === 'string') return text(value, sql);
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new TypeError(where + ': ' + value + ' is not a finite number');
      return value;
    }
    if (typeof value === 'boolean' || value === null) return value;
    if (value === undefined) return undefined;
    if (Array.isArray(value)) return value.map((v, i) => toData(v, key, where + '[' + i + ']', depth + 1));
    if (typeof value === 'object') {
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null)
        throw new TypeError(
          where + ': only plain objects, arrays, strings, numbers and booleans are allowed',
        );
      const out = {};
      for (const k of Object.keys(value)) {
        if (k === '__proto__') continue;
        const v = toData(value[k], k === 'meta' ? 'meta' : k, where + '.' + k, depth + 1);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    throw new TypeError(where + ': unsupported value of type ' + typeof value);
  };
  const lineOfCaller = () => {
    const stack = String(new Error().stack);
    const m = new RegExp(settings.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + ':(\\d+)').exec(stack);
    return m ? Number(m[1]) : null;
  };
  const define = (kind) => (name, definition) => {
    const n = refs.has(name) ? refs.get(name).join('.') : name;
    if (typeof n !== 'string' || !/^[A-Za-z_]\w*$/.test(n))
      throw new TypeError(kind + '() needs a name made of letters, digits and _ as its first argument');
    if (typeof definition !== 'object' || definition === null)
      throw new TypeError(
        kind + '(' + JSON.stringify(n) + ') needs a definition object as its second argument',
      );
    if (names.has(n)) throw new TypeError(kind + ' ' + n + ' is defined twice');
    names.add(n);
    definitions.push({ kind, name: n, line: lineOfCaller(), definition });
  };
  const data = (value, path) =>
    new Proxy(value, {
      set() {
        throw new TypeError(path + ' cannot be assigned');
      },
      defineProperty() {
        throw new TypeError(path + ' cannot be assigned');
      },
      deleteProperty() {
        throw new TypeError(path + ' cannot be changed');
      },
      get(target, prop) {
        if (typeof prop === 'symbol' || prop in target) {
          const v = target[prop];
          return v !== null && typeof v === 'object' ? data(v, path + '.' + String(prop)) : v;
        }
        throw new TypeError(
          path +
            '.' +
            prop +
            ' is not set: Tessera compiles a model once per deployment, not per security context',
        );
      },
    });

  global.cube = define('cube');
  global.view = define('view');
  global.asyncModule = () => {
    throw new TypeError('asyncModule is not supported: models are evaluated without network or file access');
  };
  global.COMPILE_CONTEXT = data(settings.compileContext, 'COMPILE_CONTEXT');
  const scope = new Proxy(Object.create(null), {
    has(_, name) {
      return typeof name === 'string' && !(name in global);
    },
    get(_, name) {
      if (typeof name !== 'string') return undefined;
      if (denied.has(name))
        throw new ReferenceError(name + ' is not available in a data model file (no host access)');
      return reference([name]);
    },
    set(_, name, value) {
      global[name] = value;
      return true;
    },
  });
  global.__tesseraEvaluate = (body) => {
    try {
      body(scope);
      const out = definitions.map((d) => ({
        kind: d.kind,
        name: d.name,
        line: d.line,
        definition: toData(d.definition, '', d.kind + ' ' + d.name, 0),
      }));
      const json = JSON.stringify({ ok: true, definitions: out });
      if (json.length > settings.maxOutputChars)
        throw new RangeError('The definitions are larger than allowed');
      return json;
    } catch (error) {
      let message = 'Evaluation failed';
      let line = null;
      try {
        message = String(error && typeof error === 'object' && 'message' in error ? error.message : error);
        const stack = String(error?.stack);
        const m = new RegExp(settings.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + ':(\\d+)').exec(stack);
        line = m ? Number(m[1]) : null;
      } catch {}
      return JSON.stringify({ ok: false, message: message.slice(0, 500), line });
    }
  };
}

/** Evaluates one JavaScript file; the answer is always a plain object of this process. */
function evaluate(file, settings) {
  const context = vm.createContext(Object.create(null), {
    name: file.path,
    codeGeneration: { strings: false, wasm: false },
    microtaskMode: 'afterEvaluate',
  });
  const options = { timeout: settings.timeoutMs, breakOnSigint: false };
  const own = JSON.stringify({
    file: file.path,
    compileContext: settings.compileContext,
    maxOutputChars: settings.maxOutputChars,
  });
  vm.runInContext(`(${prelude})(globalThis, ${own});`, context, options);
  // The file's own lines keep their numbers: the wrapper sits on its first line.
  const source = `__tesseraEvaluate(function (__scope) { with (__scope) { ${file.content}\n} });`;
  let script;
  try {
    script = new vm.Script(source, { filename: file.path });
  } catch (error) {
    const line = /:(\d+)\s*$/m.exec(String(error.stack).split('\n')[0]);
    return { ok: false, message: `Syntax error: ${error.message}`, line: line ? Number(line[1]) : null };
  }
  try {
    const out = script.runInContext(context, options);
    return typeof out === 'string'
      ? JSON.parse(out)
      : { ok: false, message: 'Evaluation failed', line: null };
  } catch (error) {
    // Only the vm's own errors get here (the timeout); the model's are caught inside.
    const timedOut = error && error.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
    return {
      ok: false,
      message: timedOut ? `Evaluation took longer than ${settings.timeoutMs} ms` : 'Evaluation failed',
      line: null,
    };
  }
}

/**
 * Runs inside a Jinja sandbox, from its source text, after the nunjucks bundle: renders one file
 * with the other model files as the templates it may import or include.
 */
function jinjaPrelude(global, settings) {
  const templates = settings.templates;
  const own = Object.prototype.hasOwnProperty;
  const loader = {
    getSource(name) {
      return own.call(templates, name) ? { src: templates[name], path: name, noCache: true } : null;
    },
  };
  global.nunjucks.installJinjaCompat();
  const env = new global.nunjucks.Environment([loader], { autoescape: false });
  global.__tesseraRender = () => {
    try {
      const text = env.renderString(
        settings.content,
        { COMPILE_CONTEXT: settings.compileContext },
        { path: settings.file },
      );
      if (typeof text !== 'string' || text.length > settings.maxOutputChars)
        throw new RangeError('The rendered template is larger than allowed');
      return JSON.stringify({ ok: true, text });
    } catch (error) {
      let message = 'Rendering failed';
      let line = null;
      try {
        const raw = String(error && typeof error === 'object' && 'message' in error ? error.message : error);
        message = raw
          .replace(/^Template render error:\s*/, '')
          .replace(/^\([^)]*\)\s*(\[Line \d+, Column \d+\])?\s*/, '')
          .replace(/\s+/g, ' ')
          .trim();
        // nunjucks counts lines from 1 when parsing and from 0 when running ("Error: ...").
        const runtime = /^\w*Error: /.test(message);
        const m = /\[Line (\d+)/.exec(raw);
        line = m ? Number(m[1]) + (runtime ? 1 : 0) : null;
        message = message.replace(/^Error: /, '');
        if (/^Unable to call/.test(message))
          message += ' (Python helpers from globals.py are not supported: use Jinja macros)';
      } catch {}
      return JSON.stringify({ ok: false, message: `Jinja: ${message}`.slice(0, 500), line });
    }
  };
}

let nunjucksScript = null;
/** Renders one Jinja file; the answer is always a plain object of this process. */
function render(file, settings) {
  nunjucksScript ??= new vm.Script(readFileSync(settings.nunjucksPath, 'utf8'), { filename: 'nunjucks.js' });
  // nunjucks compiles templates to functions: this context may compile strings, and holds nothing.
  const context = vm.createContext(Object.create(null), {
    name: file.path,
    codeGeneration: { strings: true, wasm: false },
    microtaskMode: 'afterEvaluate',
  });
  const options = { timeout: settings.timeoutMs, breakOnSigint: false };
  try {
    nunjucksScript.runInContext(context, options);
    const own = JSON.stringify({
      file: file.path,
      content: file.content,
      templates: settings.templates,
      compileContext: settings.compileContext,
      maxOutputChars: settings.maxOutputChars,
    });
    vm.runInContext(`(${jinjaPrelude})(globalThis, ${own});`, context, options);
    const out = vm.runInContext('__tesseraRender()', context, options);
    return typeof out === 'string' ? JSON.parse(out) : { ok: false, message: 'Rendering failed', line: null };
  } catch (error) {
    const timedOut = error && error.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
    return {
      ok: false,
      message: timedOut
        ? `Jinja: rendering took longer than ${settings.timeoutMs} ms`
        : 'Jinja: rendering failed',
      line: null,
    };
  }
}

// The parent sends the files once, reads one answer per file, and kills this process after.
process.on('disconnect', () => process.exit(0));
process.once('message', ({ files, settings }) => {
  for (let i = 0; i < files.length; i++) {
    const file = files[i];
    process.send({
      index: i,
      result: file.kind === 'jinja' ? render(file, settings) : evaluate(file, settings),
    });
  }
});
