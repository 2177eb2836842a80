import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../../auth/authenticate.ts';
import {
  Agent,
  AgentIdParams,
  AgentsListQuery,
  AgentsListResponse,
  CreateAgentBody,
  UpdateAgentBody,
} from './schemas.ts';
import type { AgentsService } from './service.ts';

const tags = ['Agents'];
const read = { access: { role: 'viewer' as const } };
const write = { access: { role: 'developer' as const } };
/**
 * Creating names the agent's deployment in the body: the access check reads it there, so a role
 * granting developer on that deployment (auth/roles.ts) admits, and a key scoped to it reaches it.
 */
const createOnDeployment = { access: { role: 'developer' as const, deploymentInBody: 'deploymentId' } };

/** Chat agents (DESIGN.md "Chat agent"): developers and admins write, every role reads. */
export const agentRoutes: FastifyPluginAsyncTypebox<{ agents: AgentsService }> = async (app, { agents }) => {
  const base = '/api/v1/agents';
  app.get(
    base,
    {
      schema: {
        tags,
        operationId: 'listAgents',
        summary: 'List the chat agents of the account',
        querystring: AgentsListQuery,
        response: { 200: AgentsListResponse },
      },
      config: read,
    },
    (r) => agents.list(principalOf(r), r.query),
  );
  app.post(
    base,
    {
      schema: {
        tags,
        operationId: 'createAgent',
        summary: 'Create a chat agent over a deployment; an OpenAI key is stored sealed and never returned',
        body: CreateAgentBody,
        response: { 200: Agent },
      },
      config: createOnDeployment,
    },
    (r) => agents.create(principalOf(r), r.body),
  );
  app.get(
    `${base}/:agentId`,
    {
      schema: {
        tags,
        operationId: 'getAgent',
        summary: 'Read a chat agent',
        params: AgentIdParams,
        response: { 200: Agent },
      },
      config: read,
    },
    (r) => agents.get(principalOf(r), r.params.agentId),
  );
  app.patch(
    `${base}/:agentId`,
    {
      schema: {
        tags,
        operationId: 'updateAgent',
        summary: 'Change a chat agent; a brain without apiKey keeps the stored key',
        params: AgentIdParams,
        body: UpdateAgentBody,
        response: { 200: Agent },
      },
      config: write,
    },
    (r) => agents.update(principalOf(r), r.params.agentId, r.body),
  );
  app.delete(
    `${base}/:agentId`,
    {
      schema: {
        tags,
        operationId: 'deleteAgent',
        summary: 'Delete a chat agent with its threads',
        params: AgentIdParams,
        response: { 204: Type.Null() },
      },
      config: write,
    },
    async (r, reply) => {
      await agents.delete(principalOf(r), r.params.agentId);
      return reply.code(204).send(null);
    },
  );
};
