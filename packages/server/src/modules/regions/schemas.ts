import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { nullable } from '../workspace/common.ts';

/** The reference's RegionResponse. */
export const RegionResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: 'The region as it appears in data URLs: `{deployment}.{region}.<host>`' }),
  title: nullable(Type.String()),
  provider: nullable(Type.String()),
  isPublic: nullable(Type.Boolean()),
  isDedicated: nullable(Type.Boolean()),
  isHybrid: nullable(Type.Boolean()),
  useAiEngineer: nullable(Type.Boolean()),
});

export const RegionsListQuery = Type.Object({ ...CursorQuery });

/** The reference's RegionsListResponse: `data` is the whole list, unpaginated (deprecated). */
export const RegionsListResponse = Type.Object({
  items: Type.Array(RegionResponse),
  data: Type.Array(RegionResponse, {
    deprecated: true,
    description: 'Deprecated: the full, unpaginated list; use `items` and `pageInfo` instead.',
  }),
  pageInfo: PageInfoSchema,
});
