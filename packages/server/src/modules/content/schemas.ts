import { Type } from 'typebox';

/** A content directory: its files by path relative to the directory (files.ts), each a YAML text. */
export const ContentFiles = Type.Record(
  Type.String({ minLength: 1, maxLength: 500 }),
  Type.String({ maxLength: 1_000_000 }),
  {
    maxProperties: 10_000,
    description:
      'Path (workspace/<folder>/_folder.yaml, workspace/**/<slug>.workbook.yaml, workspace/**/<name>.report.yaml, notifications/<key>.notification.yaml) -> YAML text',
  },
);

export const ContentDirectory = Type.Object({ files: ContentFiles }, { additionalProperties: false });

const FieldChange = Type.Object({
  field: Type.String({ description: 'The changed field, as a path in the file (grants/user <email>)' }),
  before: Type.Optional(Type.Unknown()),
  after: Type.Optional(Type.Unknown()),
});

const PlannedChange = Type.Object({
  action: Type.Enum(['create', 'update', 'delete'] as const),
  kind: Type.Enum(['folder', 'workbook', 'report', 'notification'] as const),
  id: Type.String({
    description: "The stable id: a folder's directory, a slug, a publicId or a notification key",
  }),
  file: Type.String(),
  fields: Type.Array(FieldChange),
});

export const ContentPlan = Type.Object({
  changes: Type.Array(PlannedChange),
  summary: Type.Object({ create: Type.Integer(), update: Type.Integer(), delete: Type.Integer() }),
});

export const ContentApplied = Type.Object({
  ...ContentPlan.properties,
  applied: Type.Boolean({ description: 'false: the deployment already matched the files; nothing changed' }),
});
