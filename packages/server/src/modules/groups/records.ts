import type { GroupRow } from '../../db/schema.ts';

export type GroupWithCount = GroupRow & { user_count: number };
