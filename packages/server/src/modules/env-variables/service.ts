import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import type { SecretBox } from '../../crypto/secrets.ts';
import { clearFields, referencesIn } from '../../datasources/env-references.ts';
import type { DataSourceSettings } from '../../db/schema.ts';
import { type FieldProblem, ValidationError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { EnvVariablesRepository } from './repository.ts';
import type { EnvVariableResolver } from './resolver.ts';
import { type EnvVariablesListResponse, maskedValue, type SetEnvVariablesInput } from './schemas.ts';

export interface EnvVariablesServiceDeps {
  repository: EnvVariablesRepository;
  resolver: EnvVariableResolver;
  deployments: DeploymentsService;
  secrets: SecretBox;
  bus: InvalidationBus;
  /** Issue 22 item 5: which variables changed is recorded, never their values. */
  audit: Pick<AuditLog, 'record'>;
}

type ListResponse = Static<typeof EnvVariablesListResponse>;

/**
 * A deployment's env variables (reference group Env Variables): values are sealed at rest and
 * write-only, so every read shows `[ENCRYPTED]`; errors name the field, never echo a value.
 */
export class EnvVariablesService {
  constructor(private readonly deps: EnvVariablesServiceDeps) {}

  async list(principal: Principal, deploymentId: number, query: PageQuery): Promise<ListResponse> {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const window = pageWindow(query, 1);
    const rows = await this.deps.repository.list(deploymentId, window);
    const page = toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => ({ name: r.name, value: maskedValue }),
    );
    return { ...page, data: page.items };
  }

  /**
   * Upserts by name; variables not sent keep their values; an empty value removes one. The masked
   * read value is refused (the reference: resending it would overwrite the secret with the mask),
   * and so is removing a variable the deployment's data source still uses.
   */
  async set(principal: Principal, deploymentId: number, input: Static<typeof SetEnvVariablesInput>) {
    const problems: FieldProblem[] = [];
    const seen = new Set<string>();
    input.env_variables.forEach(({ name, value }, i) => {
      if (seen.has(name))
        problems.push({ field: `body/env_variables/${i}/name`, message: `${name} is given more than once` });
      seen.add(name);
      if (value === maskedValue)
        problems.push({
          field: `body/env_variables/${i}/value`,
          message: `is the masked placeholder ${maskedValue}; omit ${name} to keep its value`,
        });
    });
    if (problems.length > 0) throw new ValidationError('Invalid env variables', problems);

    const deployment = await this.deps.deployments.require(principal.tenantId, deploymentId);
    const removed = input.env_variables.filter((v) => v.value === '').map((v) => v.name);
    const used = referencesIn(
      clearFields(deployment.data_source as DataSourceSettings, (s) => this.deps.secrets.open(s)),
    );
    const stillUsed = input.env_variables.flatMap(({ name }, i) =>
      removed.includes(name) && used.some((u) => u.name === name)
        ? [
            {
              field: `body/env_variables/${i}/value`,
              message: `${name} is used by the deployment's data source`,
            },
          ]
        : [],
    );
    if (stillUsed.length > 0)
      throw new ValidationError('Env variables in use by the data source cannot be removed', stillUsed);

    // Sorted by name, so that concurrent writers take the rows' locks in one order.
    const upserts = input.env_variables
      .filter((v) => v.value !== '')
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    await this.deps.repository.transaction(async (trx) => {
      for (const { name, value } of upserts)
        await this.deps.repository.upsert(deploymentId, name, this.deps.secrets.seal(value), trx);
      await this.deps.repository.remove(deploymentId, removed, trx);
      await this.deps.audit.record(trx, principal, {
        action: 'env_variables.set',
        targetType: 'deployment',
        targetId: deploymentId,
        after: {
          set: upserts.map((v) => ({ name: v.name, value: maskedValue })),
          removed,
        },
      });
    });
    this.deps.bus.publish('deployments');
    return this.list(principal, deploymentId, {});
  }
}
