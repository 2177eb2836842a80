import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ConversationMessage } from '../types.ts';

/**
 * The tools as function definitions, with spec 4.6's input fields. The SQL dialect is the data
 * API's `/v1/cubesql` (DESIGN.md "Semantic layer and data API"), described so that a model can
 * write queries the translator plans.
 */
export const TOOL_DEFINITIONS: ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'serviceMeta',
      description:
        'Lists the cubes and views of the semantic model with their members (measures carry aggType; dimensions a type: string, number, time, boolean; segments type "segment"). Call it before writing SQL.',
      parameters: {
        type: 'object',
        properties: {
          searchQuery: { type: 'string', description: "What you are looking for, in the user's words." },
        },
        required: ['searchQuery'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'serviceSqlApi',
      description:
        "Runs one SQL-API query and returns its schema, at most 100 rows (`data`, numbers as text) and `totalRows`. SQL is PostgreSQL-flavoured: each cube or view is a table; aggregate a measure with MEASURE(name); dimensions are plain columns and must be in GROUP BY; group time with DATE_TRUNC('month', time_dimension); filter with WHERE on dimensions (segments are boolean columns: WHERE segment_name); join cubes only as `FROM a JOIN b ON a.__cubeJoinField = b.__cubeJoinField`; ORDER BY and LIMIT as usual. A result with an `error` field failed: fix the query.",
      parameters: {
        type: 'object',
        properties: {
          sqlQuery: { type: 'string', description: 'The SQL-API query.' },
          queryTitle: { type: 'string', description: 'A short title for the result.' },
          description: { type: 'string', description: 'What the query computes.' },
          userRequest: { type: 'string', description: 'The user request the query answers.' },
          vegaSpec: {
            type: 'string',
            description:
              'Optional chart: a Vega-Lite v5 spec as a JSON string, WITHOUT data; its fields are the result column names.',
          },
        },
        required: ['sqlQuery', 'queryTitle', 'description', 'userRequest'],
      },
    },
  },
];

/** The system message: the agent's own instructions first, then how to work with the tools. */
export function systemPrompt(instructions: string | undefined, now: Date): string {
  return [
    instructions?.trim() || 'You are a data analyst. Answer questions about the data.',
    `Today is ${now.toISOString().slice(0, 10)} (UTC).`,
    'Find the measures and dimensions with serviceMeta, then compute every figure with serviceSqlApi. State the figures from the results, with the period and filters they cover. Never invent a number: if the model cannot answer, say what is missing.',
  ].join('\n\n');
}

/** A stored thread as chat-completion messages: earlier tool calls are replayed with their results. */
export function historyMessages(messages: readonly ConversationMessage[]): ChatCompletionMessageParam[] {
  return messages.flatMap((m): ChatCompletionMessageParam[] => {
    if (m.role === 'user') return [{ role: 'user', content: m.content }];
    if (!m.toolCalls?.length) return [{ role: 'assistant', content: m.content }];
    return [
      {
        role: 'assistant',
        content: m.content || null,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: c.input },
        })),
      },
      ...m.toolCalls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: c.result })),
    ];
  });
}
