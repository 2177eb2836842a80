import { Type } from 'typebox';
import { User } from '../users/schemas.ts';
import { passwordMaxLength, passwordMinLength } from './passwords.ts';

const newPassword = (description: string) =>
  Type.String({ minLength: passwordMinLength, maxLength: passwordMaxLength, description });

export const SignInBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: passwordMaxLength }),
  },
  { additionalProperties: false },
);

export const SessionAnswer = Type.Object({
  user: User,
  csrfToken: Type.Union([Type.String(), Type.Null()], {
    description:
      'Send it as the `x-csrf-token` header with every POST, PUT, PATCH and DELETE made with the session ' +
      'cookie. null when the caller authenticated with an Authorization header, which needs none.',
  }),
});

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: passwordMaxLength }),
    newPassword: newPassword(`At least ${passwordMinLength} characters`),
  },
  { additionalProperties: false },
);

export const SetPasswordBody = Type.Object(
  { password: newPassword(`At least ${passwordMinLength} characters`) },
  { additionalProperties: false },
);
