import { hookName, type Operation } from './operations.ts';

/** Text that cannot close the JSDoc comment it is put in. */
const comment = (text: string) => text.replaceAll('*/', '*\\/').replaceAll('\n', ' ');

/**
 * The source of `src/generated/hooks.ts`: one TanStack Query hook per management operation,
 * named after its operationId. Reads are `useQuery` hooks keyed `[path, params]`; writes are
 * `useMutation` hooks that invalidate the reads listed by `staleReads` (operations.ts).
 */
export function hooksSource(operations: readonly Operation[], header: string): string {
  const lines = [
    header,
    "import type { MutationHookOptions, QueryHookInit, QueryHookOptions } from '../react/runtime.ts';",
    "import { useApiMutation, useApiQuery } from '../react/runtime.ts';",
    '',
  ];
  for (const op of operations) {
    const path = JSON.stringify(op.path);
    const method = JSON.stringify(op.method);
    const doc = [
      '/**',
      ` * ${comment(op.summary || op.operationId)}`,
      ' *',
      ` * \`${op.method.toUpperCase()} ${op.path}\``,
    ];
    if (op.kind === 'read') {
      const optional = op.paramsRequired || op.bodyRequired ? '' : '?';
      lines.push(
        ...doc,
        ' */',
        `export function ${hookName(op.operationId)}(`,
        `  init${optional}: QueryHookInit<${path}, ${method}>,`,
        `  options?: QueryHookOptions<${path}, ${method}>,`,
        ') {',
        `  return useApiQuery(${method}, ${path}, init, options);`,
        '}',
        '',
      );
    } else {
      const stale = op.invalidates.length
        ? op.invalidates.map((p) => ` * - \`${p}\``)
        : [' * Invalidates no cached read.'];
      lines.push(
        ...doc,
        ...(op.invalidates.length ? [' *', ' * On success, invalidates the cached reads of:'] : [' *']),
        ...stale,
        ' */',
        `export function ${hookName(op.operationId)}(options?: MutationHookOptions<${path}, ${method}>) {`,
        `  return useApiMutation(${method}, ${path}, ${JSON.stringify(op.invalidates)}, options);`,
        '}',
        '',
      );
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
