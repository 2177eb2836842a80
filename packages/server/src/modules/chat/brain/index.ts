/**
 * The chat agent's brains (DESIGN.md "Chat agent"). The chat module runs a turn as
 * `createBrain(agent.brain).run({ messages, instructions, tools, signal })` and turns the events
 * into spec 4.6 messages: `thinking`/`content` deltas, `tool_call`/`tool_result` as one tool-call
 * message re-emitted with its result, `final` as the `graphPath: ["final"]` answer, `error` as the
 * final `{"error": ...}` line.
 */
import { BuiltinBrain } from './builtin/brain.ts';
import type { OpenAiBrainConfig } from './openai/brain.ts';
import type { Brain } from './types.ts';

export { type ChartColumn, columnsFromSchema, pickChart, type VegaLiteSpec } from '../chart.ts';
export { invokeTool } from './invoke.ts';
export { serviceMetaResult, sqlApiToolResult, TOOL_ROW_LIMIT } from './tool-results.ts';
export type * from './types.ts';
export type { OpenAiBrainConfig };

/** How an agent thinks: the built-in planner (default), or an OpenAI-compatible endpoint. */
export type BrainConfig = { kind: 'builtin' } | ({ kind: 'openai' } & OpenAiBrainConfig);

export function createBrain(config: BrainConfig = { kind: 'builtin' }): Brain {
  if (config.kind === 'openai') {
    const { kind: _, ...openai } = config;
    return openAiBrain(openai);
  }
  return new BuiltinBrain();
}

/**
 * The OpenAI-compatible brain, with the `openai` package (some 300 files), loaded by its first
 * turn rather than at start: most servers run only the built-in brain (issue 20, item 6). What
 * the brain yields, and what it throws, are its own.
 */
function openAiBrain(config: OpenAiBrainConfig): Brain {
  return {
    async *run(turn) {
      const { OpenAiBrain } = await import('./openai/brain.ts');
      yield* new OpenAiBrain(config).run(turn);
    },
  };
}
