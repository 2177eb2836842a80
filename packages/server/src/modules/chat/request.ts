import { type Static, Type } from 'typebox';
import { type FieldProblem, ValidationError } from '../../errors/domain-errors.ts';
import { UserAttributeInput } from '../embed/schemas.ts';
import { serverOwnedContextKeys } from '../embed/session-rules.ts';

/** Spec 3 and 8: an ephemeral chat user lives one week by default, never longer. */
export const EPHEMERAL_TTL_MAX_SECONDS = 7 * 86_400;

/** The reference's SessionSettingsDto (spec 4.6 `sessionSettings.*`). */
export const SessionSettings = Type.Object(
  {
    externalId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[^\\sA-Z]+$',
        description: 'Lowercase, no spaces',
      }),
    ),
    internalId: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    userAttributes: Type.Optional(Type.Array(UserAttributeInput, { maxItems: 100 })),
    groups: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
    securityContext: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    roles: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 })),
    publicDashboardId: Type.Optional(Type.String({ maxLength: 200 })),
    isEphemeral: Type.Optional(Type.Boolean()),
    ephemeralTtlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: EPHEMERAL_TTL_MAX_SECONDS })),
  },
  { additionalProperties: false },
);

/** The reference's ChatRequest (spec 4.6 body). `images` is accepted and not used yet. */
export const ChatRequestBody = Type.Object(
  {
    input: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000 })),
    chatId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    messageId: Type.Optional(Type.String({ pattern: '^\\d{13,}-message$', maxLength: 100 })),
    // Required with an API key (the service answers 400 naming it); refused with an embed token,
    // whose session already names the user (spec 4.3).
    sessionSettings: Type.Optional(SessionSettings),
    activeBranchName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    isDefaultBranch: Type.Optional(Type.Boolean()),
    images: Type.Optional(
      Type.Array(
        Type.Object({
          data: Type.String({ maxLength: 1_000_000 }),
          mimeType: Type.String({ maxLength: 100 }),
          name: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        { maxItems: 4 },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ChatRequest = Static<typeof ChatRequestBody>;
export type SessionSettingsInput = Static<typeof SessionSettings>;

/** The reference's AbortChatRequest. */
export const AbortChatBody = Type.Object(
  {
    chatId: Type.String({ minLength: 1, maxLength: 100 }),
    sessionSettings: Type.Optional(SessionSettings),
  },
  { additionalProperties: false },
);

export const ChatParams = Type.Object({
  accountName: Type.String({ minLength: 1, maxLength: 100 }),
  agentId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
});

/** Fields an internal user brings from their account (spec 4.6: "the user's existing permissions apply"). */
const notWithInternalId = ['userAttributes', 'groups', 'securityContext', 'roles'] as const;

/** Spec 4.6's rules between `sessionSettings` fields; each problem names its field (400). */
export function sessionSettingsProblems(s: SessionSettingsInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const at = (field: string) => `body/sessionSettings/${field}`;
  if (s.externalId === undefined && s.internalId === undefined)
    problems.push({ field: at('externalId'), message: 'either externalId or internalId is required' });
  if (s.externalId !== undefined && s.internalId !== undefined)
    problems.push({ field: at('internalId'), message: 'cannot be combined with externalId' });
  if (s.internalId !== undefined) {
    for (const field of notWithInternalId)
      if (s[field] !== undefined)
        problems.push({
          field: at(field),
          message: 'is not allowed with internalId: the user’s own permissions apply',
        });
  }
  if (s.ephemeralTtlSeconds !== undefined && s.isEphemeral === false)
    problems.push({ field: at('ephemeralTtlSeconds'), message: 'applies to ephemeral users only' });
  for (const key of serverOwnedContextKeys)
    if (s.securityContext && key in s.securityContext)
      problems.push({ field: at(`securityContext/${key}`), message: 'is set by the server' });
  const seen = new Set<string>();
  (s.userAttributes ?? []).forEach((a, i) => {
    if (seen.has(a.name))
      problems.push({ field: at(`userAttributes/${i}/name`), message: `names "${a.name}" a second time` });
    seen.add(a.name);
  });
  return problems;
}

export function checkSessionSettings(s: SessionSettingsInput): void {
  const problems = sessionSettingsProblems(s);
  if (problems.length > 0)
    throw new ValidationError(
      `Invalid sessionSettings: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
      problems,
    );
}
