import type { Static } from 'typebox';
import type { Principal } from '../../../auth/principal.ts';
import type { SecretBox } from '../../../crypto/secrets.ts';
import type { Db } from '../../../db/database.ts';
import type { AgentBrainSettings, AgentRow } from '../../../db/schema.ts';
import { ForbiddenError, NotFoundError } from '../../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../../pagination/page.ts';
import type { AuditLog } from '../../audit-log/service.ts';
import type { DeploymentsService } from '../../deployments/service.ts';
import type { BrainConfig } from '../brain/index.ts';
import type { AgentsRepository, AgentWrite } from './repository.ts';
import type { Agent, BrainSettingsInput, CreateAgentBody, UpdateAgentBody } from './schemas.ts';

export interface AgentsServiceDeps {
  repository: AgentsRepository;
  deployments: DeploymentsService;
  secrets: SecretBox;
  publicUrl: () => string;
  db: Db;
  /** Issue 22 item 5: each change is recorded in its own transaction, the brain's key never. */
  audit: Pick<AuditLog, 'record'>;
}

/** The path of an agent's chat API base (DESIGN.md "Addresses on one server"). */
export function chatApiPath(accountName: string, agentId: number): string {
  return `/api/v1/public/${encodeURIComponent(accountName)}/agents/${agentId}`;
}

/**
 * Chat agents (DESIGN.md "Chat agent"): an agent answers over one deployment with its
 * instructions and brain. Chat is a plan feature of the tenant: while it is off, every agent
 * operation and every chat turn is refused with 403 `chat_disabled`.
 */
export class AgentsService {
  constructor(private readonly deps: AgentsServiceDeps) {}

  /** The account name for chat URLs; 403 `chat_disabled` when the tenant's plan has no chat. */
  async requireChat(tenantId: number): Promise<string> {
    const tenant = await this.deps.repository.tenant(tenantId);
    if (!tenant?.chat_enabled)
      throw new ForbiddenError('Chat is not enabled for this account', 'chat_disabled');
    return tenant.name;
  }

  async list(principal: Principal, query: PageQuery) {
    const account = await this.requireChat(principal.tenantId);
    const window = pageWindow(query, 1);
    const rows = await this.deps.repository.list(principal.tenantId, window);
    return toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => this.view(account, r),
    );
  }

  async get(principal: Principal, id: number) {
    const account = await this.requireChat(principal.tenantId);
    return this.view(account, await this.require(principal.tenantId, id));
  }

  async create(principal: Principal, body: Static<typeof CreateAgentBody>) {
    const account = await this.requireChat(principal.tenantId);
    await this.deps.deployments.require(principal.tenantId, body.deploymentId);
    const write = {
      name: body.name,
      instructions: body.instructions,
      ...this.brainWrite(body.brain ?? { kind: 'builtin' }),
    } as Required<Pick<AgentWrite, 'name' | 'brain'>> & AgentWrite;
    const row = await this.deps.db.transaction().execute(async (trx) => {
      const created = await this.deps.repository.insert(principal.tenantId, body.deploymentId, write, trx);
      await this.deps.audit.record(trx, principal, {
        action: 'agent.create',
        targetType: 'agent',
        targetId: created.id,
        after: agentAudit(created),
      });
      return created;
    });
    return this.view(account, row);
  }

  async update(principal: Principal, id: number, body: Static<typeof UpdateAgentBody>) {
    const account = await this.requireChat(principal.tenantId);
    const write: AgentWrite = {
      name: body.name,
      instructions: body.instructions,
      ...(body.brain ? this.brainWrite(body.brain) : {}),
    };
    const row = await this.deps.db.transaction().execute(async (trx) => {
      const before = await this.deps.repository.find(principal.tenantId, id, trx);
      const updated = await this.deps.repository.update(principal.tenantId, id, write, trx);
      if (!before || !updated) throw new NotFoundError('Agent', 'agent_not_found');
      await this.deps.audit.record(trx, principal, {
        action: 'agent.update',
        targetType: 'agent',
        targetId: id,
        before: agentAudit(before),
        // A key sent again is a new key even when it reads the same: the entry says it was replaced.
        after: { ...agentAudit(updated), ...(write.apiKeyEnc ? { apiKeyReplaced: true } : {}) },
      });
      return updated;
    });
    return this.view(account, row);
  }

  async delete(principal: Principal, id: number) {
    await this.requireChat(principal.tenantId);
    await this.deps.db.transaction().execute(async (trx) => {
      const before = await this.deps.repository.find(principal.tenantId, id, trx);
      if (!before || !(await this.deps.repository.delete(principal.tenantId, id, trx)))
        throw new NotFoundError('Agent', 'agent_not_found');
      await this.deps.audit.record(trx, principal, {
        action: 'agent.delete',
        targetType: 'agent',
        targetId: id,
        before: agentAudit(before),
      });
    });
  }

  /** The first agent of a deployment (the one an embedded dashboard chats with), if any. */
  firstOn(tenantId: number, deploymentId: number): Promise<AgentRow | undefined> {
    return this.deps.repository.firstOn(tenantId, deploymentId);
  }

  async require(tenantId: number, id: number): Promise<AgentRow> {
    const row = await this.deps.repository.find(tenantId, id);
    if (!row) throw new NotFoundError('Agent', 'agent_not_found');
    return row;
  }

  /** What the brain factory needs, with the key unsealed (brain/index.ts). */
  brainConfig(agent: AgentRow): BrainConfig {
    const brain = agent.brain;
    if (brain.kind === 'builtin') return { kind: 'builtin' };
    return {
      kind: 'openai',
      baseURL: brain.baseURL,
      model: brain.model,
      // local OpenAI-compatible servers take no key; the client still needs a value
      apiKey: agent.api_key_enc ? this.deps.secrets.open(agent.api_key_enc) : 'none',
    };
  }

  /** The brain settings to store; a new OpenAI key is sealed, an omitted one kept, builtin drops it. */
  private brainWrite(input: Static<typeof BrainSettingsInput>): Pick<AgentWrite, 'brain' | 'apiKeyEnc'> {
    if (input.kind === 'builtin') return { brain: { kind: 'builtin' }, apiKeyEnc: null };
    const brain: AgentBrainSettings = { kind: 'openai', baseURL: input.baseURL, model: input.model };
    return input.apiKey === undefined
      ? { brain }
      : { brain, apiKeyEnc: this.deps.secrets.seal(input.apiKey) };
  }

  private view(account: string, row: AgentRow): Static<typeof Agent> {
    const brain = row.brain;
    return {
      id: row.id,
      name: row.name,
      deploymentId: row.deployment_id,
      instructions: row.instructions,
      brain:
        brain.kind === 'builtin'
          ? { kind: 'builtin' }
          : {
              kind: 'openai',
              baseURL: brain.baseURL,
              model: brain.model,
              hasApiKey: row.api_key_enc !== null,
            },
      chatApiUrl: `${this.deps.publicUrl()}${chatApiPath(account, row.id)}`,
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }
}

/** What an audit entry says of an agent: its settings, and only whether its brain has a key. */
function agentAudit(row: AgentRow) {
  const brain = row.brain;
  return {
    deploymentId: row.deployment_id,
    name: row.name,
    instructions: row.instructions,
    brain:
      brain.kind === 'builtin'
        ? { kind: 'builtin' }
        : { kind: 'openai', baseURL: brain.baseURL, model: brain.model, hasApiKey: row.api_key_enc !== null },
  };
}
