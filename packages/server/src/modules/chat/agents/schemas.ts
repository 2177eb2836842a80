import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../../pagination/page.ts';

const id = Type.Integer({ minimum: 1, maximum: 2147483647 });
export const AgentIdParams = Type.Object({ agentId: id });

const name = Type.String({ minLength: 1, maxLength: 200, pattern: '^\\S(.*\\S)?$' });
const instructions = Type.String({ maxLength: 20_000 });

/** How the agent thinks (DESIGN.md "Chat agent"): the built-in planner, or an OpenAI-compatible endpoint. */
export const BrainSettingsInput = Type.Union([
  Type.Object({ kind: Type.Literal('builtin') }, { additionalProperties: false }),
  Type.Object(
    {
      kind: Type.Literal('openai'),
      baseURL: Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 }),
      model: Type.String({ minLength: 1, maxLength: 200 }),
      apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 4000 })),
    },
    { additionalProperties: false },
  ),
]);

/** The brain as returned: the key is never shown, only whether one is set. */
export const BrainSettings = Type.Union([
  Type.Object({ kind: Type.Literal('builtin') }),
  Type.Object({
    kind: Type.Literal('openai'),
    baseURL: Type.String(),
    model: Type.String(),
    hasApiKey: Type.Boolean(),
  }),
]);

export const CreateAgentBody = Type.Object(
  {
    name,
    deploymentId: id,
    instructions: Type.Optional(instructions),
    brain: Type.Optional(BrainSettingsInput),
  },
  { additionalProperties: false },
);

export const UpdateAgentBody = Type.Object(
  {
    name: Type.Optional(name),
    instructions: Type.Optional(instructions),
    brain: Type.Optional(BrainSettingsInput),
  },
  { additionalProperties: false },
);

export const Agent = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  deploymentId: Type.Integer(),
  instructions: Type.String(),
  brain: BrainSettings,
  /** Where the chat API of this agent is: `{chatApiUrl}/chat/stream-chat-state` (DESIGN.md "Addresses"). */
  chatApiUrl: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const AgentsListQuery = Type.Object({ ...CursorQuery });
export const AgentsListResponse = Type.Object({ items: Type.Array(Agent), pageInfo: PageInfoSchema });
