/** An account user attribute as `GET /api/v1/user-attributes` lists it (modules/user-attributes). */
export interface PreviewAttribute {
  name: string;
  type: 'string' | 'number' | 'boolean' | 'string_array' | 'number_array';
  displayName: string | null;
  defaultValue: string | null;
}

/**
 * What the admin typed, as the value generate-session takes for the attribute's type (spec 4.3
 * `userAttributes`). Text that is not of the type is sent as typed, so that the server's 400 says
 * what is wrong beside the field rather than the page guessing.
 */
export function attributeValue(
  type: PreviewAttribute['type'],
  text: string,
): string | number | boolean | string[] | number[] {
  const value = text.trim();
  const isNumber = (t: string) => t !== '' && Number.isFinite(Number(t));
  const number = (t: string) => (isNumber(t) ? Number(t) : t);
  switch (type) {
    case 'number':
      return number(value);
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'string_array':
      return value.split(',').map((v) => v.trim());
    case 'number_array': {
      const parts = value.split(',').map((v) => v.trim());
      return parts.every(isNumber) ? parts.map(Number) : parts;
    }
    default:
      return value;
  }
}
