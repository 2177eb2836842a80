import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { strict } from '../workspace/common.ts';

/** What a stored value reads as: values are write-only (issue 22 item 4; reference Env Variables). */
export const maskedValue = '[ENCRYPTED]';

/** POSIX identifiers, as the reference requires of new variable names. */
export const envVariableName = Type.String({
  pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
  maxLength: 255,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown literally
  description: 'A POSIX identifier; a data source setting uses it as `${NAME}`',
});

/** The reference's EnvVariableItem, as read: the value is always `[ENCRYPTED]`. */
export const EnvVariableItem = Type.Object({
  name: Type.String(),
  value: Type.String({ description: 'Always `[ENCRYPTED]`: a value is never returned once set' }),
});

export const EnvVariableInput = Type.Object(
  {
    name: envVariableName,
    value: Type.String({
      maxLength: 65536,
      description: 'The new value, encrypted at rest; an empty string removes the variable',
    }),
  },
  strict,
);

/** The reference's SetEnvVariablesInput. */
export const SetEnvVariablesInput = Type.Object(
  { env_variables: Type.Array(EnvVariableInput, { maxItems: 500 }) },
  strict,
);

export const EnvVariablesListQuery = Type.Object({ ...CursorQuery });

/** The reference's EnvVariablesListResponse. */
export const EnvVariablesListResponse = Type.Object({
  items: Type.Array(EnvVariableItem),
  data: Type.Array(EnvVariableItem, {
    deprecated: true,
    description: 'Deprecated: use `items` instead. Kept for backward compatibility.',
  }),
  pageInfo: PageInfoSchema,
});
