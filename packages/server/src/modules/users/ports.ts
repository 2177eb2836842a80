import type { Db } from '../../db/database.ts';

/**
 * What user administration needs of other modules' rows (API keys, browser sessions, roles);
 * composition.ts wires their repositories.
 */
export interface KeyRevoker {
  revokeAllOfUser(userId: number, db?: Db): Promise<unknown>;
}

export interface SessionRevoker {
  revokeAllOfUser(userId: number, db?: Db, keepId?: number): Promise<unknown>;
}

export interface RoleHoldings {
  ofUsers(userIds: number[]): Promise<Map<number, { id: number; name: string }[]>>;
}
