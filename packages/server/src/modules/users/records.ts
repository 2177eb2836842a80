import type { AccountRole } from '../../db/schema.ts';

export interface UserInput {
  email: string;
  username: string;
  firstName?: string | null;
  lastName?: string | null;
  picture?: string | null;
  role: AccountRole;
  externalId?: string | null;
  passwordHash?: string | null;
  settings?: Record<string, unknown>;
}
