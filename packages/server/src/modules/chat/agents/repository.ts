import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { AgentBrainSettings, AgentRow } from '../../../db/schema.ts';
import { type PageWindow, pageById } from '../../../pagination/page.ts';

export interface AgentWrite {
  name?: string;
  instructions?: string;
  brain?: AgentBrainSettings;
  /** undefined keeps the stored key; null removes it. */
  apiKeyEnc?: string | null;
}

/** Chat agents of a tenant, plain Kysely; and the tenant's chat switch (`tenants.chat_enabled`). */
export class AgentsRepository {
  constructor(private readonly db: Db) {}

  /** The account name (the chat URL's `accountName`) and whether its plan has chat. */
  tenant(tenantId: number): Promise<{ name: string; chat_enabled: boolean } | undefined> {
    return this.db
      .selectFrom('tenants')
      .select(['name', 'chat_enabled'])
      .where('id', '=', tenantId)
      .executeTakeFirst();
  }

  list(tenantId: number, window: PageWindow): Promise<AgentRow[]> {
    const q = this.db
      .selectFrom('agents as a')
      .selectAll('a')
      .where('a.tenant_id', '=', tenantId)
      .orderBy('a.id');
    return pageById(q, window, 'a.id').execute();
  }

  find(tenantId: number, id: number, db: Db = this.db): Promise<AgentRow | undefined> {
    return db
      .selectFrom('agents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The tenant's first agent on a deployment (the seeded demo agent). */
  firstOn(tenantId: number, deploymentId: number): Promise<AgentRow | undefined> {
    return this.db
      .selectFrom('agents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('deployment_id', '=', deploymentId)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  }

  insert(
    tenantId: number,
    deploymentId: number,
    input: Required<Pick<AgentWrite, 'name' | 'brain'>> & AgentWrite,
    db: Db = this.db,
  ): Promise<AgentRow> {
    return db
      .insertInto('agents')
      .values({
        tenant_id: tenantId,
        deployment_id: deploymentId,
        name: input.name,
        instructions: input.instructions ?? '',
        brain: JSON.stringify(input.brain),
        api_key_enc: input.apiKeyEnc ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  update(tenantId: number, id: number, input: AgentWrite, db: Db = this.db): Promise<AgentRow | undefined> {
    return db
      .updateTable('agents')
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
        ...(input.brain !== undefined ? { brain: JSON.stringify(input.brain) } : {}),
        ...(input.apiKeyEnc !== undefined ? { api_key_enc: input.apiKeyEnc } : {}),
        updated_at: sql`now()`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(tenantId: number, id: number, db: Db = this.db): Promise<boolean> {
    const result = await db
      .deleteFrom('agents')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
