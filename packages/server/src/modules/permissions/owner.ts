import type { Owner } from './access.ts';
import type { Grantee } from './repository.ts';

/** The grant that gives an owner manage on what it created: its account user or its embed user. */
export function granteeOf(owner: Owner): Grantee {
  return owner.embedUserId !== null ? { embedUserId: owner.embedUserId } : { userId: owner.userId! };
}
