import type { Db } from '../../db/database.ts';
import type { UserRow } from '../../db/schema.ts';

/** What password sign-in reads of users (modules/users owns them). */
export interface UserDirectory {
  find(tenantId: number, id: number, db?: Db): Promise<UserRow | undefined>;
  findByEmail(tenantId: number, email: string): Promise<UserRow | undefined>;
}
