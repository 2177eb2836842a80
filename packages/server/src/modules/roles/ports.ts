import type { Db } from '../../db/database.ts';
import type { UserRow } from '../../db/schema.ts';

/** What roles read of users (modules/users owns them; composition.ts wires the repository). */
export interface UserLookup {
  find(tenantId: number, id: number, db?: Db): Promise<UserRow | undefined>;
}
