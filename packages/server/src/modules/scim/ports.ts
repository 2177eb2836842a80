import type { Db } from '../../db/database.ts';

/** What SCIM user provisioning needs of users, API keys and sessions; composition.ts wires them. */
export interface AdminSuccession {
  countActiveAdmins(tenantId: number, db?: Db): Promise<number>;
  firstActiveAdmin(tenantId: number, exceptId: number, db?: Db): Promise<number | undefined>;
  transferContent(fromUserId: number, toUserId: number, db?: Db): Promise<void>;
}

export interface KeyRevoker {
  revokeAllOfUser(userId: number, db?: Db): Promise<unknown>;
}

export interface SessionRevoker {
  revokeAllOfUser(userId: number, db?: Db, keepId?: number): Promise<unknown>;
}
