import { isDeepStrictEqual } from 'node:util';
import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import { randomToken, type SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { NotificationRecipientKind } from '../../db/schema.ts';
import { type FieldProblem, ValidationError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { serverOwnedContextKeys } from '../embed/session-rules.ts';
import type { EmbedIdentities } from '../embed-tenants/identities.ts';
import type { UserLookup } from './ports.ts';
import type {
  NotificationsRepository,
  RecipientFilter,
  RecipientWithNames,
  RemovedRecipient,
} from './repository.ts';
import type {
  AddRecipientsBody,
  NotificationsListQuery,
  Recipient,
  RecipientInput,
  RemoveRecipientsBody,
} from './schemas.ts';
import type { NotificationsService } from './service.ts';
import { webhookUrlProblem } from './signed-webhook.ts';

export interface RecipientsServiceDeps {
  db: Db;
  /** Issue 22 item 5: recipient changes are recorded in their transaction (webhooks by host only). */
  audit: Pick<AuditLog, 'record'>;
  notifications: NotificationsService;
  repository: NotificationsRepository;
  users: UserLookup;
  embedIdentities: Pick<EmbedIdentities, 'upsertTenant' | 'upsertUser'>;
  secrets: SecretBox;
}

type Input = Static<typeof RecipientInput>;
type View = Static<typeof Recipient>;

/** A recipient checked and resolved, ready to store. */
interface Resolved {
  type: NotificationRecipientKind;
  key: string;
  userId: number | null;
  email: string | null;
  username: string | null;
  url: string | null;
  secret: string | null;
  embed: {
    tenantName: string;
    externalId: string;
    email: string | null;
    securityContext: Record<string, unknown> | null;
    userAttributes: Record<string, unknown> | null;
    groups: string[] | null;
  } | null;
}

const emailShape = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;

/**
 * Recipients of a notification (spec 2.5: separate records, added with `POST
 * /notifications/{id}/recipients`; the reference's add, list and remove). The reference's types
 * USER (an account user by id or email) and EMBED_USER (provisioned if new, rendered under its own
 * security context), SLACK refused with 400 as the reference does, plus EMAIL (an address that is
 * no account user) and WEBHOOK (an HTTP endpoint). Every recipient is checked before anything is
 * written; adding is idempotent per recipient key.
 */
export class RecipientsService {
  constructor(private readonly deps: RecipientsServiceDeps) {}

  async list(principal: Principal, deploymentId: number, id: number, query: PageQuery) {
    await this.deps.notifications.require(principal, deploymentId, id);
    const window = pageWindow(query, 1);
    const rows = await this.deps.repository.recipients(id, window);
    return toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => recipientView(r),
    );
  }

  async add(principal: Principal, deploymentId: number, id: number, body: Static<typeof AddRecipientsBody>) {
    await this.deps.notifications.require(principal, deploymentId, id);
    const problems: FieldProblem[] = [];
    const resolved = new Map<string, Resolved>();
    for (const [i, input] of body.recipients.entries()) {
      const r = await this.resolve(principal.tenantId, input, `body/recipients/${i}/`, problems);
      if (r) resolved.set(r.key, r);
    }
    if (problems.length > 0)
      throw new ValidationError(`Invalid recipients: ${problems.map((p) => p.field).join(', ')}`, problems);

    const outcome = { created: [] as number[], updated: [] as number[], unchanged: [] as number[] };
    const generated = new Map<number, string>();
    const changed: (ReturnType<typeof recipientLabel> & { change: string })[] = [];
    await this.deps.db.transaction().execute(async (trx) => {
      for (const r of resolved.values()) {
        let embedUserId: number | null = null;
        if (r.embed) {
          const tenant = await this.deps.embedIdentities.upsertTenant(
            principal.tenantId,
            r.embed.tenantName,
            null,
            trx,
          );
          // A subscriber is kept: an ephemeral embed user becomes permanent (spec 3 lifetimes).
          const user = await this.deps.embedIdentities.upsertUser(
            {
              tenantId: principal.tenantId,
              embedTenantId: tenant.id,
              externalId: r.embed.externalId,
              email: r.embed.email,
              lifetime: { kind: 'permanent' },
              signsIn: false,
            },
            trx,
          );
          embedUserId = user.id;
          r.key = `embed:${user.id}`;
        }
        const secret = r.type === 'WEBHOOK' ? (r.secret ?? `whsec_${randomToken(24)}`) : null;
        const values = {
          notification_id: id,
          type: r.type,
          recipient_key: r.key,
          user_id: r.userId,
          embed_user_id: embedUserId,
          email: r.email,
          username: r.username,
          webhook_url: r.url,
          webhook_secret_enc: secret === null ? null : this.deps.secrets.seal(secret),
          security_context: jsonOrNull(r.embed?.securityContext),
          user_attributes: jsonOrNull(r.embed?.userAttributes),
          groups: jsonOrNull(r.embed?.groups),
        };
        const created = await this.deps.repository.insertRecipient(values, trx);
        // Added or changed recipients are recorded; one already subscribed as asked is not.
        const label = recipientLabel({
          type: r.type,
          user_id: r.userId,
          email: r.email,
          embed_user_id: embedUserId,
          webhook_url: r.url,
        });
        if (created !== undefined) {
          outcome.created.push(created);
          changed.push({ ...label, change: 'added' });
          if (r.type === 'WEBHOOK' && r.secret === null && secret !== null) generated.set(created, secret);
          continue;
        }
        const [existing] = await this.deps.repository.recipientsByKeys(id, [r.key], trx);
        const changes = this.changes(existing, r);
        if (Object.keys(changes).length === 0) outcome.unchanged.push(existing.id);
        else {
          await this.deps.repository.updateRecipient(existing.id, changes, trx);
          outcome.updated.push(existing.id);
          changed.push({ ...label, change: 'updated' });
        }
      }
      if (changed.length > 0)
        await this.deps.audit.record(trx, principal, {
          action: 'notification.add_recipients',
          targetType: 'notification',
          targetId: id,
          after: { deploymentId, recipients: changed },
        });
    });

    const rows = new Map((await this.deps.repository.allRecipients(id)).map((r) => [r.id, r]));
    const views = (ids: number[]) =>
      ids.flatMap((rid) => {
        const row = rows.get(rid);
        return row ? [recipientView(row, generated.get(rid))] : [];
      });
    return {
      createdRecipients: views(outcome.created),
      updatedRecipients: views(outcome.updated),
      unchangedRecipients: views(outcome.unchanged),
    };
  }

  /** Removals are idempotent: naming a recipient that is not subscribed changes nothing. */
  async remove(
    principal: Principal,
    deploymentId: number,
    id: number,
    body: Static<typeof RemoveRecipientsBody>,
  ): Promise<void> {
    await this.deps.notifications.require(principal, deploymentId, id);
    const problems: FieldProblem[] = [];
    const keys: string[] = [];
    const ids: number[] = [];
    for (const [i, entry] of body.recipients.entries()) {
      const field = `body/recipients/${i}/id`;
      const asNumber = typeof entry.id === 'number' ? entry.id : null;
      switch (entry.type) {
        case 'USER':
          if (asNumber === null) problems.push({ field, message: 'must be the userId (an integer)' });
          else keys.push(`user:${asNumber}`);
          break;
        case 'EMBED_USER':
          if (entry.embedTenantName == null)
            problems.push({
              field: `body/recipients/${i}/embedTenantName`,
              message: 'is required for EMBED_USER',
            });
          if (asNumber === null) problems.push({ field, message: 'must be the embedUserId (an integer)' });
          else keys.push(`embed:${asNumber}`);
          break;
        case 'SLACK':
          // Slack recipients are never stored (the reference refuses to add them): nothing to remove.
          break;
        case 'EMAIL':
        case 'WEBHOOK':
          if (asNumber !== null) ids.push(asNumber);
          else if (entry.type === 'EMAIL') keys.push(`email:${String(entry.id).trim().toLowerCase()}`);
          else keys.push(`webhook:${String(entry.id).trim()}`);
          break;
      }
    }
    if (problems.length > 0)
      throw new ValidationError(`Invalid recipients: ${problems.map((p) => p.field).join(', ')}`, problems);
    // An id that names a recipient of another type is not removed: the type must match.
    const typed = ids.length > 0 ? await this.idsOfTypes(id, ids, body) : [];
    await this.deps.db.transaction().execute(async (trx) => {
      const removed = await this.deps.repository.deleteRecipients(id, keys, typed, trx);
      if (removed.length === 0) return;
      await this.deps.audit.record(trx, principal, {
        action: 'notification.remove_recipients',
        targetType: 'notification',
        targetId: id,
        before: { deploymentId, recipients: removed.map(recipientLabel) },
      });
    });
  }

  /** The reference's recipient filters of the notifications list, resolved to ids. */
  async listFilter(
    tenantId: number,
    q: Static<typeof NotificationsListQuery>,
  ): Promise<RecipientFilter | null> {
    if (q.recipientUserId !== undefined) {
      const user = await this.deps.users.find(tenantId, q.recipientUserId);
      return { kind: 'user', userId: q.recipientUserId, email: user?.email ?? null };
    }
    if (q.recipientEmail !== undefined) {
      const user = await this.deps.users.findByEmail(tenantId, q.recipientEmail.trim());
      return user
        ? { kind: 'user', userId: user.id, email: user.email }
        : { kind: 'email', email: q.recipientEmail.trim() };
    }
    if (q.recipientEmbedTenantName !== undefined && q.recipientExternalId !== undefined) {
      const found = await this.deps.repository.embedUser(
        tenantId,
        q.recipientEmbedTenantName,
        q.recipientExternalId,
      );
      return found ? { kind: 'embed', embedUserId: found.id } : { kind: 'none' };
    }
    return null;
  }

  private async idsOfTypes(notificationId: number, ids: number[], body: Static<typeof RemoveRecipientsBody>) {
    const all = await this.deps.repository.allRecipients(notificationId);
    const wanted = new Set(
      body.recipients.filter((e) => typeof e.id === 'number').map((e) => `${e.type}:${e.id as number}`),
    );
    return all.filter((r) => ids.includes(r.id) && wanted.has(`${r.type}:${r.id}`)).map((r) => r.id);
  }

  private changes(existing: RecipientWithNames, r: Resolved) {
    const changes: Record<string, string | null> = {};
    if (
      (r.type === 'EMAIL' || r.type === 'WEBHOOK') &&
      r.username !== null &&
      r.username !== existing.username
    )
      changes.username = r.username;
    if (r.type === 'WEBHOOK' && r.secret !== null) {
      const current = existing.webhook_secret_enc
        ? this.deps.secrets.open(existing.webhook_secret_enc)
        : null;
      if (current !== r.secret) changes.webhook_secret_enc = this.deps.secrets.seal(r.secret);
    }
    if (r.embed) {
      const fields = [
        ['security_context', existing.security_context, r.embed.securityContext],
        ['user_attributes', existing.user_attributes, r.embed.userAttributes],
        ['groups', existing.groups, r.embed.groups],
      ] as const;
      for (const [column, before, after] of fields)
        if (!isDeepStrictEqual(before ?? null, after ?? null)) changes[column] = jsonOrNull(after);
    }
    return changes;
  }

  private async resolve(
    tenantId: number,
    input: Input,
    prefix: string,
    problems: FieldProblem[],
  ): Promise<Resolved | null> {
    const problem = (field: string, message: string) => {
      problems.push({ field: prefix + field, message });
      return null;
    };
    const base = { userId: null, email: null, username: null, url: null, secret: null, embed: null };
    switch (input.type) {
      case 'SLACK':
        return problem('type', 'SLACK recipients are not supported');
      case 'USER': {
        if ((input.userId == null) === (input.email == null))
          return problem(input.userId == null ? 'userId' : 'email', 'give exactly one of userId and email');
        const user =
          input.userId != null
            ? await this.deps.users.find(tenantId, input.userId)
            : await this.deps.users.findByEmail(tenantId, (input.email as string).trim());
        const field = input.userId != null ? 'userId' : 'email';
        if (!user || user.is_deactivated) return problem(field, 'names no active user of this account');
        if (!emailShape.test(user.email)) return problem(field, 'the user has no valid email address');
        return { ...base, type: 'USER', key: `user:${user.id}`, userId: user.id };
      }
      case 'EMAIL': {
        const email = input.email?.trim() ?? '';
        if (!emailShape.test(email)) return problem('email', 'must be an email address');
        return {
          ...base,
          type: 'EMAIL',
          key: `email:${email.toLowerCase()}`,
          email,
          username: input.username ?? null,
        };
      }
      case 'WEBHOOK': {
        const url = input.url?.trim() ?? '';
        const bad = webhookUrlProblem(url);
        if (bad) return problem('url', bad);
        return {
          ...base,
          type: 'WEBHOOK',
          key: `webhook:${url}`,
          url,
          username: input.username ?? null,
          secret: input.secret ?? null,
        };
      }
      case 'EMBED_USER': {
        const before = problems.length;
        if (input.embedTenantName == null) problem('embedTenantName', 'is required for EMBED_USER');
        else if (!/^[a-z][a-z0-9-]{0,34}[a-z0-9]$/.test(input.embedTenantName))
          // Spec 8: the embed tenant name pattern.
          problem('embedTenantName', 'must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$');
        const externalId = input.externalId?.trim().toLowerCase() ?? '';
        if (externalId === '') problem('externalId', 'is required for EMBED_USER');
        const email = input.email?.trim() ?? null;
        if (email !== null && !emailShape.test(email)) problem('email', 'must be an email address');
        else if (email === null && externalId !== '' && !emailShape.test(externalId))
          problem('email', 'is required when externalId is not an email address');
        const context = input.securityContext ?? null;
        for (const key of serverOwnedContextKeys)
          if (context && key in context) problem(`securityContext/${key}`, 'is set by the server');
        const groups = input.groups ?? null;
        if (groups && groups.length > 0) {
          const known = await this.deps.repository.existingGroups(tenantId, groups);
          groups.forEach((g, gi) => {
            if (!known.has(g)) problem(`groups/${gi}`, `"${g}" is not a group of this account`);
          });
        }
        const attributes: Record<string, unknown> = {};
        (input.userAttributes ?? []).forEach((a, ai) => {
          if (a.name in attributes) problem(`userAttributes/${ai}/name`, `names "${a.name}" a second time`);
          attributes[a.name] = a.value;
        });
        if (problems.length > before) return null;
        return {
          ...base,
          type: 'EMBED_USER',
          key: '',
          embed: {
            tenantName: input.embedTenantName as string,
            externalId,
            email,
            securityContext: context,
            userAttributes: input.userAttributes ? attributes : null,
            groups: groups ? [...new Set(groups)] : null,
          },
        };
      }
    }
  }
}

function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

export function recipientView(r: RecipientWithNames, secret?: string): View {
  const embed = r.type === 'EMBED_USER';
  return {
    recipientId: r.id,
    type: r.type,
    userId: r.user_id,
    email:
      r.type === 'USER' ? r.user_email : embed ? (r.embed_email ?? emailOf(r.embed_external_id)) : r.email,
    username: r.type === 'USER' ? r.user_username : embed ? r.embed_display_name : r.username,
    embedUserId: r.embed_user_id,
    embedTenantName: embed ? r.embed_tenant_name : null,
    externalId: embed ? r.embed_external_id : null,
    channelId: null,
    channelName: null,
    url: r.webhook_url,
    ...(secret === undefined ? {} : { secret }),
    createdAt: r.created_at.toISOString(),
  };
}

/** An embed user without an email is mailed at its external id when that is an address (the reference's rule). */
export function emailOf(externalId: string | null): string | null {
  return externalId !== null && emailShape.test(externalId) ? externalId : null;
}

/**
 * A recipient as an audit entry names it. A webhook's URL can carry its credential in the path
 * (chat-service webhooks do), so only its host is named.
 */
function recipientLabel(r: RemovedRecipient) {
  if (r.type === 'WEBHOOK') {
    let host: string | null = null;
    try {
      host = r.webhook_url ? new URL(r.webhook_url).host : null;
    } catch {
      host = null;
    }
    return { type: r.type, host };
  }
  if (r.type === 'EMBED_USER') return { type: r.type, embedUserId: r.embed_user_id };
  return { type: r.type, userId: r.user_id, email: r.email };
}
