import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { filterOperators, timeGrains } from '../dashboard-data/schemas.ts';
import { deploymentItemParams, Id } from '../deployments/schemas.ts';
import { scheduleTypes } from '../notifications/schedule.ts';
import { nullable, strict } from '../workspace/common.ts';

/**
 * Shapes of Tessera's alerts on measures (issue 23 item 6; the reference has no such group). The
 * query is the semantic layer's shape cut down to one measure: its filters and an optional time
 * dimension with a granularity (required by `changeBy`, which compares the latest period with the
 * one before it). The schedule fields are the notifications' (notifications/schedule.ts), checked
 * there so that one 400 names every bad field.
 */
export const conditionTypes = ['above', 'below', 'changeBy'] as const;
export const securityContexts = ['owner', 'recipient'] as const;
export type AlertSecurityContext = (typeof securityContexts)[number];

const member = Type.String({ minLength: 1, maxLength: 300, description: 'A member, `cube.member`' });

const AlertFilter = Type.Object(
  {
    member,
    operator: Type.Enum(filterOperators),
    values: Type.Optional(Type.Array(Type.String({ maxLength: 10_000 }), { maxItems: 1000 })),
  },
  strict,
);

const AlertTimeDimension = Type.Object(
  {
    dimension: member,
    granularity: Type.Enum(timeGrains),
    dateRange: Type.Optional(
      nullable(
        Type.Union(
          [
            Type.String({ minLength: 1, maxLength: 100 }),
            Type.Array(Type.String(), { minItems: 2, maxItems: 2 }),
          ],
          {
            description: "`[from, to]`, or relative text such as 'last 6 months'",
          },
        ),
      ),
    ),
  },
  strict,
);

export const AlertQuery = Type.Object(
  {
    measure: Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'The measure watched, `cube.measure`',
    }),
    filters: Type.Optional(Type.Array(AlertFilter, { maxItems: 50 })),
    timeDimension: Type.Optional(nullable(AlertTimeDimension)),
  },
  {
    ...strict,
    description: 'With a time dimension, the value is that of the latest period the query returns',
  },
);

export const AlertCondition = Type.Object(
  {
    type: Type.Enum(conditionTypes),
    threshold: Type.Optional(
      nullable(Type.Number({ description: '`above` and `below`: the value compared with' })),
    ),
    percent: Type.Optional(
      nullable(
        Type.Number({
          exclusiveMinimum: 0,
          description:
            '`changeBy`: fires when the latest period differs from the previous one by more than this percent, up or down',
        }),
      ),
    ),
  },
  strict,
);

const AlertRecipientInput = Type.Object(
  {
    userId: Type.Optional(nullable(Id)),
    email: Type.Optional(nullable(Type.String({ minLength: 3, maxLength: 320 }))),
    url: Type.Optional(
      nullable(
        Type.String({
          minLength: 1,
          maxLength: 2000,
          description: 'A webhook: the http(s) URL that receives a signed JSON POST per crossing',
        }),
      ),
    ),
    secret: Type.Optional(
      nullable(
        Type.String({
          minLength: 16,
          maxLength: 200,
          description:
            "The webhook's signing secret (HMAC-SHA256, as notification webhooks). Required for a new URL; " +
            'omitted, a URL the alert already has keeps its secret. Stored sealed, never returned',
        }),
      ),
    ),
  },
  {
    ...strict,
    description:
      'One of: an account user by `userId` or `email`; under `owner` only, any address (`email`) or a webhook ' +
      '(`url` with `secret`)',
  },
);

const ScheduleType = Type.Enum(scheduleTypes);
const timeField = (description: string) => Type.Optional(nullable(Type.Integer({ description })));

const alertFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  query: AlertQuery,
  condition: AlertCondition,
  scheduleType: ScheduleType,
  customCron: Type.Optional(nullable(Type.String({ maxLength: 200 }))),
  minute: timeField('Minute of the hour, 0-59'),
  hour: timeField('Hour of the day, 0-23'),
  dayOfWeek: timeField('Day of the week, 0-6, Sunday is 0'),
  dayOfMonth: timeField('Day of the month, 1-31'),
  timezone: Type.Optional(
    nullable(Type.String({ minLength: 1, maxLength: 64, description: 'IANA zone; default UTC' })),
  ),
  recipients: Type.Array(AlertRecipientInput, { minItems: 1, maxItems: 100 }),
  securityContext: Type.Optional(
    nullable(
      Type.Enum(securityContexts, {
        description:
          "`owner` (default): the measure is read once under the alert creator's security context; `recipient`: " +
          "under each recipient's own (row-level security applies), with the alert's state kept per recipient",
      }),
    ),
  ),
  isEnabled: Type.Optional(nullable(Type.Boolean())),
};

export const CreateAlertBody = Type.Object(alertFields, strict);

/** Any subset; omitted fields are unchanged. */
export const UpdateAlertBody = Type.Partial(Type.Object(alertFields, strict));

export const AlertParams = deploymentItemParams('alertId');
export const AlertsListQuery = Type.Object({ ...CursorQuery });

const dateTime = Type.String({ format: 'date-time' });

export const AlertRecipient = Type.Object({
  userId: nullable(Type.Integer()),
  email: nullable(Type.String()),
  url: Type.Optional(
    Type.String({ description: 'A webhook recipient: its URL (its secret is never returned)' }),
  ),
});

export const Alert = Type.Object({
  id: Type.Integer(),
  deploymentId: Type.Integer(),
  name: Type.String(),
  query: AlertQuery,
  condition: AlertCondition,
  securityContext: Type.Enum(securityContexts),
  scheduleType: ScheduleType,
  minute: nullable(Type.Integer()),
  hour: nullable(Type.Integer()),
  dayOfWeek: nullable(Type.Integer()),
  dayOfMonth: nullable(Type.Integer()),
  customCron: nullable(Type.String()),
  cronExpression: Type.String(),
  humanReadableSchedule: Type.String(),
  timezone: Type.String(),
  isEnabled: Type.Boolean(),
  recipients: Type.Array(AlertRecipient),
  ownerId: nullable(
    Type.Integer({ description: 'The user whose security context reads the measure under `owner`' }),
  ),
  nextCheckAt: nullable(
    Type.String({ format: 'date-time', description: 'Next scheduled check; null while disabled' }),
  ),
  createdAt: dateTime,
  updatedAt: dateTime,
});

export const AlertsListResponse = Type.Object({ items: Type.Array(Alert), pageInfo: PageInfoSchema });

export const checkStates = ['pending', 'running', 'done', 'failed'] as const;
export const deliveryOutcomes = ['none', 'sending', 'retrying', 'sent', 'failed'] as const;

export const AlertDeliveryAttempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  at: dateTime,
  outcome: Type.Enum(['sent', 'failed']),
  error: nullable(Type.String()),
  retryAt: nullable(Type.String({ format: 'date-time', description: 'When the next attempt is due' })),
});

export const AlertCheckResult = Type.Object({
  recipient: AlertRecipient,
  value: nullable(
    Type.Number({
      description: 'The measure as this recipient reads it (the latest period with a time dimension)',
    }),
  ),
  previousValue: nullable(Type.Number({ description: '`changeBy`: the period before' })),
  conditionMet: nullable(Type.Boolean({ description: 'null when the value could not be read' })),
  fired: Type.Boolean({
    description: 'The condition started to hold at this check: one delivery was due (mail or webhook)',
  }),
  delivery: Type.Enum(deliveryOutcomes, {
    description:
      '`retrying`: a retryable failure (SMTP down, a webhook 5xx or unreachable); sent again at `nextAttemptAt`',
  }),
  error: nullable(Type.String()),
  sentAt: nullable(dateTime),
  nextAttemptAt: nullable(dateTime),
  attempts: Type.Array(AlertDeliveryAttempt, { description: 'Each send of this delivery, oldest first' }),
});

export const AlertCheck = Type.Object({
  id: Type.Integer(),
  alertId: Type.Integer(),
  trigger: Type.Enum(['schedule', 'manual']),
  fireTime: nullable(dateTime),
  state: Type.Enum(checkStates),
  error: nullable(Type.String()),
  createdAt: dateTime,
  finishedAt: nullable(dateTime),
  results: Type.Array(AlertCheckResult),
});

export const AlertChecksListResponse = Type.Object({
  items: Type.Array(AlertCheck),
  pageInfo: PageInfoSchema,
});
