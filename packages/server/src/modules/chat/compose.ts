import type { ComposedModule } from '../module.ts';
import { agentRoutes } from './agents/routes.ts';
import { AgentsService } from './agents/service.ts';
import { chatRoutes } from './routes.ts';
import { ChatService, type ChatServiceDeps } from './service.ts';

/** Chat agents and turns with them (DESIGN.md "Chat agent"): the services and their routes (issue 22 item 0). */
export function composeChat(deps: {
  agents: ConstructorParameters<typeof AgentsService>[0];
  /** The chat service's dependencies but its agents, which it is given from here. */
  chat: Omit<ChatServiceDeps, 'agents'>;
}): ComposedModule<{ agents: AgentsService; chat: ChatService }> {
  const agents = new AgentsService(deps.agents);
  const chat = new ChatService({ ...deps.chat, agents });
  return {
    services: { agents, chat },
    routes: async (app) => {
      await app.register(agentRoutes, { agents });
      await app.register(chatRoutes, { chat });
    },
  };
}
