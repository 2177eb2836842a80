import type { DimensionType, Relationship } from '@tessera/semantic';
import { Type } from 'typebox';

/**
 * `/v1/meta` (spec section 1, data API; reference data-api.yaml `V1MetaResponse`, `V1CubeMeta*`),
 * field for field what packages/semantic/src/meta/meta.ts returns, as Cube's
 * CubeToMetaTransformer lists it. Tessera builds this shape, so every object is closed
 * (`additionalProperties: false`): a field meta.ts adds without declaring it here fails
 * meta-schema.test.ts. Only what the model author writes (`meta`, `format`) stays free.
 */

const closed = { additionalProperties: false } as const;

/** Every value of a semantic-layer union, checked by the compiler (the package exports types only). */
const every =
  <T extends string>() =>
  <const A extends readonly T[]>(values: A & ([T] extends [A[number]] ? unknown : never)) =>
    values;
const dimensionTypes = every<DimensionType>()(['string', 'number', 'time', 'boolean', 'geo']);
const relationships = every<Relationship>()(['many_to_one', 'one_to_many', 'one_to_one']);

export const MetaQuerystring = Type.Object(
  {
    extended: Type.Optional(Type.String({ description: 'Present: add member SQL and cube joins' })),
  },
  { additionalProperties: true },
);

const AuthorMeta = Type.Record(Type.String(), Type.Unknown(), {
  description: "The model's `meta`, as written",
});
const Format = Type.Unknown({
  description:
    "The model's `format`, as written: a name (`percent`, `currency`, `number`, `imageUrl`, `id`, `link`) or an object such as `{type: 'link', label}`",
});
const Visible = Type.Literal(true, {
  description: 'Always true: members this token may not see, or not public, are left out',
});

/** What every member carries (Cube's CubeToMetaTransformer). */
const memberFields = {
  name: Type.String({ description: '`cube.member` (`view.member` on a view)' }),
  title: Type.String({ description: 'The owner title and the member title, e.g. `Orders Count`' }),
  shortTitle: Type.String({ description: 'The member title alone' }),
  description: Type.Optional(Type.String()),
  meta: Type.Optional(AuthorMeta),
  public: Visible,
  isVisible: Visible,
  aliasMember: Type.Optional(
    Type.String({ description: 'On a view member: the cube member it stands for, `cube.member`' }),
  ),
  sql: Type.Optional(
    Type.String({ description: 'With `extended`: its SQL, columns qualified with `{cube}`' }),
  ),
};

const MetaMeasure = Type.Object(
  {
    ...memberFields,
    type: Type.Enum(['number', 'string', 'time', 'boolean'], { description: 'The type of its values' }),
    aggType: Type.String({
      description: 'The measure type as written: count, count_distinct, sum, avg, min, max, number, ...',
    }),
    cumulative: Type.Boolean({ description: 'Has a rolling window' }),
    cumulativeTotal: Type.Boolean({ description: 'Has a rolling window (same as `cumulative`)' }),
    drillMembers: Type.Array(Type.String(), { description: 'Its drill members, `cube.member`' }),
    drillMembersGrouped: Type.Object(
      {
        measures: Type.Array(Type.String(), { description: 'Always empty' }),
        dimensions: Type.Array(Type.String(), { description: 'The drill members' }),
      },
      closed,
    ),
    format: Type.Optional(Format),
  },
  { ...closed, description: "Cube's V1CubeMetaMeasure" },
);

const Granularity = Type.Object(
  {
    name: Type.String(),
    title: Type.String(),
    interval: Type.String({ description: 'As written, e.g. `2 weeks`' }),
    offset: Type.Optional(Type.String({ description: 'As written, e.g. `3 months`' })),
    origin: Type.Optional(Type.String({ description: 'As written, e.g. `2024-01-01`' })),
  },
  { ...closed, description: 'A custom granularity of a time dimension' },
);

const MetaDimension = Type.Object(
  {
    ...memberFields,
    type: Type.Enum(dimensionTypes),
    primaryKey: Type.Boolean({
      description: "The cube's primary key (listed only when the model makes it public)",
    }),
    suggestFilterValues: Type.Boolean({ description: 'Always true' }),
    format: Type.Optional(Format),
    granularities: Type.Optional(
      Type.Array(Granularity, {
        description: 'A time dimension: its custom granularities only (the built-in ones are implied)',
      }),
    ),
  },
  { ...closed, description: "Cube's V1CubeMetaDimension" },
);

const MetaSegment = Type.Object(memberFields, { ...closed, description: "Cube's V1CubeMetaSegment" });

/** Cube's V1CubeMetaHierarchy. */
const MetaHierarchy = Type.Object(
  {
    name: Type.String({ description: '`cube.hierarchy` (`view.hierarchy` on a view)' }),
    title: Type.Optional(Type.String()),
    levels: Type.Array(Type.String(), {
      description: 'Its dimensions from the top level down (`view.member` on a view); hidden ones left out',
    }),
    public: Visible,
    aliasMember: Type.Optional(
      Type.String({ description: 'On a view: the cube hierarchy, `cube.hierarchy`' }),
    ),
  },
  closed,
);

/** Cube's V1CubeMetaFolder: a view folder, the members of its nested folders merged in. */
const MetaFolder = Type.Object({ name: Type.String(), members: Type.Array(Type.String()) }, closed);

/**
 * Cube's V1CubeMetaNestedFolder: a view folder whose members are member paths or folders. It
 * refers to itself, so the OpenAPI document holds it once as a component (data/openapi.ts).
 */
export const metaNestedFolderName = 'MetaNestedFolder';
const nestedFolderRef = Type.Ref(`#/components/schemas/${metaNestedFolderName}`);
export const MetaNestedFolder = Type.Object(
  { name: Type.String(), members: Type.Array(Type.Union([Type.String(), nestedFolderRef])) },
  { ...closed, description: 'A view folder: member paths (`view.member`) and folders inside it' },
);

const MetaJoin = Type.Object(
  {
    name: Type.String({ description: 'The joined cube' }),
    relationship: Type.Enum(relationships),
    sql: Type.String({ description: 'The join condition, `{CUBE}` written as the cube name' }),
  },
  closed,
);

const MetaCube = Type.Object(
  {
    name: Type.String(),
    title: Type.String(),
    type: Type.Enum(['cube', 'view']),
    public: Visible,
    isVisible: Visible,
    connectedComponent: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Cubes only: cubes linked by joins (either direction) share this number',
      }),
    ),
    description: Type.Optional(Type.String()),
    meta: Type.Optional(AuthorMeta),
    measures: Type.Array(MetaMeasure),
    dimensions: Type.Array(MetaDimension),
    segments: Type.Array(MetaSegment),
    joins: Type.Optional(Type.Array(MetaJoin, { description: 'Cubes only, with `extended`' })),
    hierarchies: Type.Array(MetaHierarchy, {
      description: 'Public hierarchies with a level this token may see',
    }),
    folders: Type.Array(MetaFolder, { description: 'Views only (empty on a cube): folders flattened' }),
    nestedFolders: Type.Array(nestedFolderRef, {
      description: 'Views only (empty on a cube): folders as nested',
    }),
  },
  { ...closed, description: 'A cube or view with the members this token may see' },
);

export const MetaResponse = Type.Object({ cubes: Type.Array(MetaCube) }, closed);
