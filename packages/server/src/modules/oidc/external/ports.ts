import type { Db } from '../../../db/database.ts';
import type { BrowserSessionRow, UserRow } from '../../../db/schema.ts';
import type { NewSession } from '../../sign-in/records.ts';
import type { UserInput } from '../../users/records.ts';

/**
 * What OIDC sign-in writes of users, group memberships and browser sessions (owned by modules/users,
 * modules/groups and modules/sign-in); composition.ts wires their repositories.
 */
export interface UserAccounts {
  find(tenantId: number, id: number, db?: Db): Promise<UserRow | undefined>;
  findByEmail(tenantId: number, email: string): Promise<UserRow | undefined>;
  insert(tenantId: number, input: UserInput, db?: Db): Promise<UserRow>;
}

export interface GroupMemberships {
  addMember(groupId: number, userId: number, db?: Db): Promise<unknown>;
}

export interface SessionStore {
  pruneDeadSessions(userId: number, idleCutoff: Date, db?: Db): Promise<unknown>;
  insertSession(input: NewSession, db?: Db): Promise<BrowserSessionRow>;
}
