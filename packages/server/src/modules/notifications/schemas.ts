import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { DashboardFilter, TimeGrain } from '../dashboard-data/schemas.ts';
import { deploymentItemParams, Id } from '../deployments/schemas.ts';
import { JsonObject, nullable, strict } from '../workspace/common.ts';
import { scheduleTypes } from './schedule.ts';

/**
 * Shapes of the Notifications group (spec 2.5, 4.5; the reference's `CreateNotificationInput`,
 * `UpdateNotificationInput`, `NotificationDto` and the recipients sub-resource). Filters and time
 * grains are the dashboard viewer's shapes (dashboard-data/schemas.ts), which is what spec 2.5
 * says a notification stores. The time fields are plain integers here and range-checked by
 * schedule.ts, so that one 400 names every bad field.
 */
export const notificationFormats = ['png', 'pdf'] as const;
export type NotificationFormat = (typeof notificationFormats)[number];

const Format = Type.Enum(notificationFormats);
const ScheduleType = Type.Enum(scheduleTypes);
const timeField = (description: string) => Type.Optional(nullable(Type.Integer({ description })));
export const Filters = Type.Array(DashboardFilter, { maxItems: 100 });
export const TimeGrains = Type.Array(TimeGrain, { maxItems: 50 });
const MemberSwitcher = Type.Object(
  {
    member: Type.String({ minLength: 1, maxLength: 300 }),
    selected: Type.String({ minLength: 1, maxLength: 300 }),
  },
  strict,
);
const MemberSwitchers = Type.Array(MemberSwitcher, {
  maxItems: 50,
  description:
    'Field-switcher selections: not supported by this server yet, so only an empty list is accepted.',
});
const publicIdText = Type.String({ minLength: 1, maxLength: 64 });
const timezone = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'IANA time zone the schedule is evaluated in; default UTC',
});

const scheduleFields = {
  customCron: Type.Optional(
    nullable(
      Type.String({
        maxLength: 200,
        description: 'Standard 5-field cron expression; required when scheduleType is CUSTOM',
      }),
    ),
  ),
  minute: timeField('Minute of the hour, 0-59'),
  hour: timeField('Hour of the day, 0-23'),
  dayOfWeek: timeField('Day of the week, 0-6, Sunday is 0'),
  dayOfMonth: timeField('Day of the month, 1-31'),
  timezone: Type.Optional(nullable(timezone)),
};

const renderFields = {
  filters: Type.Optional(nullable(Filters)),
  timeGrains: Type.Optional(nullable(TimeGrains)),
  memberSwitchers: Type.Optional(nullable(MemberSwitchers)),
  notificationEnabled: Type.Optional(nullable(Type.Boolean())),
  notificationFormat: Type.Optional(nullable(Format)),
  notificationAiSummary: Type.Optional(
    nullable(
      Type.Boolean({ description: 'AI summaries are not supported by this server: only false is accepted.' }),
    ),
  ),
};

/** The reference's CreateNotificationInput (spec 4.5). */
export const CreateNotificationBody = Type.Object(
  {
    scheduleType: ScheduleType,
    ...scheduleFields,
    dashboardId: Type.Optional(nullable(Id)),
    dashboardPublicId: Type.Optional(nullable(publicIdText)),
    ...renderFields,
    isEnabled: Type.Optional(nullable(Type.Boolean())),
  },
  strict,
);

/** The reference's UpdateNotificationInput: any subset; recipients are never changed here. */
export const UpdateNotificationBody = Type.Object(
  {
    scheduleType: Type.Optional(nullable(ScheduleType)),
    ...scheduleFields,
    ...renderFields,
    isEnabled: Type.Optional(nullable(Type.Boolean())),
  },
  strict,
);

export const NotificationParams = deploymentItemParams('id');

export const NotificationsListQuery = Type.Object({
  dashboardId: Type.Optional(Id),
  dashboardPublicId: Type.Optional(publicIdText),
  recipientUserId: Type.Optional(Id),
  recipientEmail: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
  recipientEmbedTenantName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  recipientExternalId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  ...CursorQuery,
});

const nullableString = nullable(Type.String());

export const Notification = Type.Object({
  id: Type.Integer(),
  deploymentId: Type.Integer(),
  dashboardId: Type.Integer(),
  dashboardPublicId: Type.String(),
  scheduleType: ScheduleType,
  minute: nullable(Type.Integer()),
  hour: nullable(Type.Integer()),
  dayOfWeek: nullable(Type.Integer()),
  dayOfMonth: nullable(Type.Integer()),
  customCron: nullableString,
  cronExpression: Type.String(),
  humanReadableSchedule: Type.String({ description: 'Human-readable description of the cron schedule' }),
  timezone: Type.String(),
  isEnabled: Type.Boolean(),
  notificationEnabled: Type.Boolean(),
  notificationFormat: Format,
  notificationAiSummary: Type.Boolean(),
  filters: nullable(Filters),
  timeGrains: nullable(TimeGrains),
  memberSwitchers: nullable(MemberSwitchers),
  ownerId: nullable(Type.Integer({ description: 'The user whose security context renders the dashboard' })),
  nextFireAt: nullable(
    Type.String({ format: 'date-time', description: 'Next fire time; null while disabled' }),
  ),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const NotificationsListResponse = Type.Object({
  items: Type.Array(Notification),
  pageInfo: PageInfoSchema,
});

/* Recipients: the reference's NotificationRecipientInput, plus EMAIL (an address that is no
   account user) and WEBHOOK (an HTTP endpoint that receives the file, signed with HMAC). */

export const recipientInputTypes = ['USER', 'EMBED_USER', 'SLACK', 'EMAIL', 'WEBHOOK'] as const;
const RecipientInputType = Type.Enum(recipientInputTypes);
export const recipientTypes = ['USER', 'EMBED_USER', 'EMAIL', 'WEBHOOK'] as const;
export const recipientListTypes = [...recipientTypes, 'SLACK'] as const;
const RecipientType = Type.Enum(recipientListTypes);

const UserAttribute = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }), value: Type.Unknown() },
  strict,
);

export const RecipientInput = Type.Object(
  {
    type: RecipientInputType,
    userId: Type.Optional(nullable(Id)),
    email: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 320 }))),
    username: Type.Optional(
      nullable(
        Type.String({ minLength: 1, maxLength: 200, description: 'Display name (EMAIL and WEBHOOK)' }),
      ),
    ),
    embedTenantName: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    externalId: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    groups: Type.Optional(
      nullable(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
    ),
    securityContext: Type.Optional(nullable(JsonObject)),
    userAttributes: Type.Optional(nullable(Type.Array(UserAttribute, { maxItems: 100 }))),
    channelId: Type.Optional(nullable(Type.String({ maxLength: 200 }))),
    channelName: Type.Optional(nullable(Type.String({ maxLength: 200 }))),
    url: Type.Optional(
      nullable(
        Type.String({ minLength: 1, maxLength: 2000, description: 'WEBHOOK: http(s) URL to POST to' }),
      ),
    ),
    secret: Type.Optional(
      nullable(
        Type.String({
          minLength: 16,
          maxLength: 200,
          description: 'WEBHOOK: signing secret; generated and returned once when omitted',
        }),
      ),
    ),
  },
  strict,
);

export const AddRecipientsBody = Type.Object(
  { recipients: Type.Array(RecipientInput, { minItems: 1, maxItems: 1000 }) },
  strict,
);

export const RemoveRecipientsBody = Type.Object(
  {
    recipients: Type.Array(
      Type.Object(
        {
          type: RecipientType,
          id: Type.Union([Id, Type.String({ minLength: 1, maxLength: 2000 })], {
            description:
              'userId (USER), embedUserId (EMBED_USER), channelId (SLACK); for EMAIL the address and for ' +
              'WEBHOOK the URL, or for either its recipientId',
          }),
          embedTenantName: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 64 }))),
        },
        strict,
      ),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  strict,
);

export const Recipient = Type.Object({
  recipientId: Type.Integer(),
  type: RecipientType,
  userId: nullable(Type.Integer()),
  email: nullableString,
  username: nullableString,
  embedUserId: nullable(Type.Integer()),
  embedTenantName: nullableString,
  externalId: nullableString,
  channelId: nullableString,
  channelName: nullableString,
  url: nullableString,
  secret: Type.Optional(
    Type.String({ description: 'WEBHOOK: the generated signing secret, returned once when created' }),
  ),
  createdAt: Type.String({ format: 'date-time' }),
});

export const RecipientsListQuery = Type.Object({ ...CursorQuery });

export const RecipientsListResponse = Type.Object({
  items: Type.Array(Recipient),
  pageInfo: PageInfoSchema,
});

export const RecipientsMutationResponse = Type.Object({
  createdRecipients: Type.Array(Recipient),
  updatedRecipients: Type.Array(Recipient),
  unchangedRecipients: Type.Array(Recipient),
});

/* The run log: one entry per fire time. */

export const runStates = ['pending', 'running', 'succeeded', 'partially_failed', 'failed'] as const;
export const deliveryStates = ['pending', 'sending', 'sent', 'failed'] as const;

const FailedWidget = Type.Object({ id: Type.String(), title: Type.String(), error: Type.String() });

export const Delivery = Type.Object({
  type: Type.Enum(recipientTypes),
  address: Type.String(),
  state: Type.Enum(deliveryStates),
  attempts: Type.Integer(),
  error: nullableString,
  sentAt: nullable(Type.String({ format: 'date-time' })),
});

export const Run = Type.Object({
  id: Type.Integer(),
  notificationId: Type.Integer(),
  fireTime: Type.String({ format: 'date-time' }),
  state: Type.Enum(runStates),
  attempts: Type.Integer(),
  error: nullableString,
  failedWidgets: Type.Array(FailedWidget),
  nextAttemptAt: nullable(Type.String({ format: 'date-time' })),
  startedAt: nullable(Type.String({ format: 'date-time' })),
  finishedAt: nullable(Type.String({ format: 'date-time' })),
  deliveries: Type.Array(Delivery),
});

export const RunsListResponse = Type.Object({ items: Type.Array(Run), pageInfo: PageInfoSchema });

export const RunNowResponse = Type.Object({ run: Run });
