import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { ValidationError } from '../../errors/domain-errors.ts';
import { type ApplyDeps, applyWithin, prepare } from './apply.ts';
import { type ContentItem, parseFiles } from './files.ts';
import type { ContentPlan } from './plan.ts';
import type { DeploymentCheck } from './ports.ts';
import { contentState, exportFiles } from './state.ts';

export interface ContentServiceDeps extends ApplyDeps {
  db: Db;
  deployments: DeploymentCheck;
}

/**
 * Content kept as code (issue 25 item 6): a deployment's folders, workbooks with their dashboards,
 * reports, notifications and grants as YAML files (files.ts); what applying a directory would do
 * (plan.ts); applying it in one transaction through the owning modules' services (apply.ts).
 * The CLI (`tessera content ...`) and the HTTP routes both call this.
 */
export class ContentService {
  constructor(private readonly deps: ContentServiceDeps) {}

  /** The deployment's content as files: path -> YAML text, paths in order. */
  async export(principal: Principal, deploymentId: number): Promise<{ files: Record<string, string> }> {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    return { files: exportFiles(contentState(await this.deps.repository.read(deploymentId))) };
  }

  async plan(
    principal: Principal,
    deploymentId: number,
    files: Record<string, string>,
  ): Promise<ContentPlan> {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const desired = parse(files);
    return (await prepare(this.deps, principal, deploymentId, desired)).plan;
  }

  /** Applies the files; answers the plan it carried out (empty when the deployment already matched). */
  async apply(
    principal: Principal,
    deploymentId: number,
    files: Record<string, string>,
  ): Promise<ContentPlan & { applied: boolean }> {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const desired = parse(files);
    const plan = await this.deps.db
      .transaction()
      .execute((trx) => applyWithin(this.deps, principal, deploymentId, desired, trx));
    return { ...plan, applied: plan.changes.length > 0 };
  }
}

function parse(files: Record<string, string>): ContentItem[] {
  const { items, problems } = parseFiles(files);
  if (problems.length > 0)
    throw new ValidationError('The content directory has problems', problems.slice(0, 50));
  return items;
}
