import type { UserRow } from '../../db/schema.ts';
import type { AccountViewer } from '../dashboard-data/viewer.ts';
import type { EmailTarget, PlainMail } from '../notifications/channels.ts';
import type { WebhookTarget } from '../notifications/signed-webhook.ts';

/**
 * What alerts need of other modules; composition.ts wires them: users (recipients and owners),
 * viewers (dashboard-data's ViewerResolver: the security context a measure is read under) and
 * the notifications' channels (email, and the signed webhook POST).
 */
export interface AlertUsers {
  find(tenantId: number, id: number): Promise<UserRow | undefined>;
  findByEmail(tenantId: number, email: string): Promise<UserRow | undefined>;
}

export interface AlertViewers {
  /** An account user with their groups and user attributes: what row-level policies read. */
  user(tenantId: number, userId: number): Promise<AccountViewer>;
}

export interface AlertMailer {
  send(target: EmailTarget, mail: PlainMail): Promise<void>;
  close(): void;
}

export interface AlertWebhooks {
  /** POSTs the JSON body signed with the target's secret; throws DeliveryError (signed-webhook.ts). */
  post(target: WebhookTarget, deliveryId: string, body: string): Promise<void>;
}
