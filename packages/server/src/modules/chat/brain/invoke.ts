import type {
  ChatTools,
  ServiceMetaInput,
  ServiceMetaOutcome,
  ServiceSqlApiInput,
  ServiceSqlApiOutcome,
} from './types.ts';

export interface ToolOutcome {
  /** The result as the wire carries it (`toolCall.result`, a JSON string). */
  result: string;
  isError: boolean;
  value: ServiceMetaOutcome | ServiceSqlApiOutcome | { error: string };
}

/**
 * Runs one tool call from its JSON input, as a model sends it: the input is checked against the
 * tool's fields (spec 4.6) and every failure becomes a result with an `error` field, so that the
 * brain can recover. A thrown error says nothing about internals; an abort is rethrown.
 */
export async function invokeTool(
  tools: ChatTools,
  name: string,
  input: string,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  const fail = (error: string): ToolOutcome => ({
    result: JSON.stringify({ error }),
    isError: true,
    value: { error },
  });
  let args: unknown;
  try {
    args = JSON.parse(input || '{}');
  } catch {
    return fail(`The input of ${name} is not valid JSON`);
  }
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return fail(`The input of ${name} must be an object`);
  const fields = args as Record<string, unknown>;
  let call: () => Promise<ServiceMetaOutcome | ServiceSqlApiOutcome>;
  if (name === 'serviceMeta') {
    const searchQuery = fields.searchQuery ?? '';
    if (typeof searchQuery !== 'string') return fail('serviceMeta: searchQuery must be a string');
    const metaInput: ServiceMetaInput = { searchQuery };
    call = () => tools.serviceMeta(metaInput, signal);
  } else if (name === 'serviceSqlApi') {
    const sqlInput = sqlApiInput(fields);
    if (typeof sqlInput === 'string') return fail(`serviceSqlApi: ${sqlInput}`);
    call = () => tools.serviceSqlApi(sqlInput, signal);
  } else {
    return fail(`Unknown tool ${name}; the tools are serviceMeta and serviceSqlApi`);
  }
  let value: ServiceMetaOutcome | ServiceSqlApiOutcome;
  try {
    value = await call();
  } catch (error) {
    if (signal.aborted) throw error;
    return fail(`${name} failed`);
  }
  const isError = typeof (value as { error?: unknown }).error === 'string';
  return { result: JSON.stringify(value), isError, value };
}

/** The `serviceSqlApi` input fields, or what is wrong with them. */
function sqlApiInput(fields: Record<string, unknown>): ServiceSqlApiInput | string {
  if (typeof fields.sqlQuery !== 'string' || fields.sqlQuery.trim() === '')
    return 'sqlQuery must be a SQL string';
  const text = (key: string): string => (typeof fields[key] === 'string' ? (fields[key] as string) : '');
  // models sometimes send the chart as an object: the wire carries it as a JSON string
  const spec = fields.vegaSpec;
  const vegaSpec =
    typeof spec === 'string' ? spec : spec && typeof spec === 'object' ? JSON.stringify(spec) : undefined;
  return {
    sqlQuery: fields.sqlQuery,
    queryTitle: text('queryTitle'),
    description: text('description'),
    userRequest: text('userRequest'),
    ...(typeof fields.memoryId === 'string' ? { memoryId: fields.memoryId } : {}),
    ...(vegaSpec !== undefined ? { vegaSpec } : {}),
  };
}
