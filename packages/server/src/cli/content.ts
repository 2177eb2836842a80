import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Principal } from '../auth/principal.ts';
import { openMigratedStore, secretBoxFor } from '../bootstrap/runtime.ts';
import { seed } from '../bootstrap/seed.ts';
import { InvalidationBus } from '../cache/invalidation-bus.ts';
import { composeApplication } from '../composition.ts';
import type { Config } from '../config/config.ts';
import { DomainError } from '../errors/domain-errors.ts';
import { type ContentPlan, planText } from '../modules/content/plan.ts';
import { UsageError } from './admin.ts';

/** The directories of a content directory that hold its files (modules/content/files.ts). */
const contentRoots = ['workspace', 'notifications'];

export interface ContentArgs {
  deployment?: string;
  out?: string;
  dir?: string;
  email?: string;
}

/**
 * `tessera content export|plan|apply` (issue 25 item 6): content kept as code, on the store
 * directly as the other admin commands do, through the same services as the HTTP routes. Acts as
 * the first admin, or the account user named by `--email`, whose access the services check.
 */
export async function contentCommand(
  config: Config,
  sub: string | undefined,
  args: ContentArgs,
): Promise<{ text: string; data: unknown; exitCode: number }> {
  if (sub !== 'export' && sub !== 'plan' && sub !== 'apply')
    throw new UsageError('content takes export, plan or apply');
  const deploymentId = Number(args.deployment);
  if (!Number.isInteger(deploymentId) || deploymentId < 1)
    throw new UsageError(`content ${sub} needs --deployment with a deployment id`);
  const dir = sub === 'export' ? args.out : args.dir;
  if (!dir)
    throw new UsageError(`content ${sub} needs ${sub === 'export' ? '--out' : '--dir'} with a directory`);
  // Read before the store opens: a missing directory is the caller's mistake, not a store's.
  const files = sub === 'export' ? {} : readContentDirectory(dir);

  const store = await openMigratedStore(config);
  const secrets = secretBoxFor(config);
  const application = composeApplication({
    config,
    db: store.db,
    secrets,
    bus: new InvalidationBus(),
    redis: null,
  });
  try {
    const seeded = await seed(store.db, secrets, {
      dataDir: config.dataDir,
      adminApiKey: config.adminApiKey,
      skipDemo: true,
      createAdminKey: false,
    });
    const principal = await principalFor(application, seeded, args.email);
    if (sub === 'export') {
      const exported = await application.content.export(principal, deploymentId);
      writeContentDirectory(dir, exported.files);
      const count = Object.keys(exported.files).length;
      return {
        text: `Wrote ${count} files to ${dir}`,
        data: { files: Object.keys(exported.files) },
        exitCode: 0,
      };
    }
    const plan: ContentPlan =
      sub === 'plan'
        ? await application.content.plan(principal, deploymentId, files)
        : await application.content.apply(principal, deploymentId, files);
    const text = sub === 'apply' && plan.changes.length > 0 ? `${planText(plan)}\nApplied.` : planText(plan);
    return { text, data: plan, exitCode: 0 };
  } catch (error) {
    // A refused directory names each file and field, as the API's 400 does.
    if (error instanceof DomainError) {
      const lines = [
        `${error.message} (${error.code})`,
        ...error.errors.map((e) => `  ${e.field}: ${e.message}`),
      ];
      return {
        text: lines.join('\n'),
        data: { code: error.code, message: error.message, errors: error.errors },
        exitCode: 1,
      };
    }
    throw error;
  } finally {
    await application.close();
    await store.close();
  }
}

async function principalFor(
  application: ReturnType<typeof composeApplication>,
  seeded: { tenantId: number; adminUserId: number },
  email: string | undefined,
): Promise<Principal> {
  const users = application.repositories.users;
  const user = email
    ? await users.findByEmail(seeded.tenantId, email)
    : await users.find(seeded.tenantId, seeded.adminUserId);
  if (!user) throw new UsageError(`No user with email ${email}`);
  return {
    tenantId: seeded.tenantId,
    userId: user.id,
    role: user.role,
    credentialId: 0,
    credentialKind: 'api',
    deploymentIds: null,
  };
}

/** Every file under the directory's content roots, by path relative to it with forward slashes. */
export function readContentDirectory(dir: string): Record<string, string> {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`${dir} is not a directory`);
  const files: Record<string, string> = {};
  const walk = (relative: string) => {
    const absolute = path.join(dir, relative);
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) files[child] = readFileSync(path.join(dir, child), 'utf8');
    }
  };
  for (const root of contentRoots)
    if (statSync(path.join(dir, root), { throwIfNoEntry: false })?.isDirectory()) walk(root);
  return files;
}

/**
 * Writes an export: the content roots are replaced whole, so that a file for an item since deleted
 * does not linger (and come back on the next apply); anything else in the directory is left alone.
 */
export function writeContentDirectory(dir: string, files: Record<string, string>): void {
  for (const root of contentRoots) rmSync(path.join(dir, root), { recursive: true, force: true });
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(dir, ...file.split('/'));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}
