import { ValidationError } from '../../errors/domain-errors.ts';

/**
 * A report's chart is a Vega-Lite v5 spec (spec 4.6: "a Vega-Lite v5 spec as a JSON string"):
 * accepted as an object or a JSON string and stored as an object; a `$schema` naming another
 * version of Vega-Lite, or anything but an object, is refused.
 */
export function normaliseSpec(spec: Record<string, unknown> | string | null): Record<string, unknown> | null {
  if (spec === null) return null;
  let value: unknown = spec;
  if (typeof spec === 'string') {
    try {
      value = JSON.parse(spec);
    } catch {
      throw invalid('body/spec', 'is not valid JSON');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid('body/spec', 'must be a JSON object');
  const schema = (value as { $schema?: unknown }).$schema;
  if (schema !== undefined && (typeof schema !== 'string' || !/vega-lite\/v5(\.|\.json|$)/.test(schema))) {
    throw invalid('body/spec', 'must be a Vega-Lite v5 spec ($schema .../vega-lite/v5.json)');
  }
  return value as Record<string, unknown>;
}

/** A semantic query is a JSON object (the data API's load query). */
export function checkJsonQuery(text: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('body/jsonQuery', 'is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('body/jsonQuery', 'must be a JSON object');
  }
}

function invalid(field: string, message: string) {
  return new ValidationError(
    `The report is invalid: ${field} ${message}`,
    [{ field, message }],
    'invalid_report',
  );
}
