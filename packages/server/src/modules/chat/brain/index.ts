/**
 * The chat agent's brains (DESIGN.md "Chat agent"). The chat module runs a turn as
 * `createBrain(agent.brain).run({ messages, instructions, tools, signal })` and turns the events
 * into spec 4.6 messages: `thinking`/`content` deltas, `tool_call`/`tool_result` as one tool-call
 * message re-emitted with its result, `final` as the `graphPath: ["final"]` answer, `error` as the
 * final `{"error": ...}` line.
 */
import { BuiltinBrain } from './builtin/brain.ts';
import { OpenAiBrain, type OpenAiBrainConfig } from './openai/brain.ts';
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
    return new OpenAiBrain(openai);
  }
  return new BuiltinBrain();
}
