import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';

/** One management change (issue 22 item 5): who, what, when, before and after, and the request. */
export const AuditEntry = Type.Object({
  id: Type.Integer(),
  occurredAt: Type.String({ format: 'date-time' }),
  actor: Type.Object({
    userId: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The account user whose credential made the change; null for the server itself',
    }),
    email: Type.Union([Type.String(), Type.Null()], { description: "The user's email at the time" }),
    credentialKind: Type.Union([Type.String(), Type.Null()], {
      description: '`api` (API key), `scim`, `session` (browser sign-in) or `embed`',
    }),
    credentialId: Type.Union([Type.Integer(), Type.Null()]),
  }),
  requestId: Type.Union([Type.String(), Type.Null()], {
    description: 'The `x-request-id` of the request that made the change',
  }),
  action: Type.String({ description: 'What was done, as `<targetType>.<verb>`, e.g. `user.update`' }),
  targetType: Type.String(),
  targetId: Type.Union([Type.String(), Type.Null()]),
  before: Type.Unknown({ description: 'The target before the change (null when created); secrets redacted' }),
  after: Type.Unknown({ description: 'The target after the change (null when deleted); secrets redacted' }),
});

const text = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));

/** The filters the list and the export share. */
export const AuditFilters = {
  action: text('Only this action, e.g. `user.update`; a trailing `*` matches a prefix (`user.*`)'),
  targetType: text('Only changes of this kind of resource, e.g. `user`'),
  targetId: text('Only changes of this resource (with `targetType`)'),
  actorUserId: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Only changes by this user' }),
  ),
  requestId: text('Only the changes of this request'),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Changes at or after this time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Changes before this time' })),
};

export const AuditListQuery = Type.Object({ ...AuditFilters, ...CursorQuery });
export const AuditExportQuery = Type.Object({ ...AuditFilters });

export const AuditListResponse = Type.Object({ items: Type.Array(AuditEntry), pageInfo: PageInfoSchema });
