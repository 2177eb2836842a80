import type { Family } from './route-cases.ts';

export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

const scimErrorUrn = 'urn:ietf:params:scim:api:messages:2.0:Error';

function parse(body: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** What a 4xx of each family must look like (DESIGN.md "Errors"); empty when it does. */
function shapeProblems(family: Family, answer: Answer, json: Record<string, unknown> | undefined): string[] {
  const problems: string[] = [];
  if (!json) return [`4xx body is not a JSON object: ${answer.body.slice(0, 200)}`];
  if (family === 'scim') {
    if (!answer.contentType.includes('application/scim+json'))
      problems.push(`content-type ${answer.contentType}`);
    if (!Array.isArray(json.schemas) || !json.schemas.includes(scimErrorUrn))
      problems.push('schemas lacks the Error URN');
    if (json.status !== String(answer.status)) problems.push(`status ${JSON.stringify(json.status)}`);
    if (typeof json.detail !== 'string') problems.push('no detail');
  } else if (family === 'data') {
    if (!answer.contentType.includes('application/json')) problems.push(`content-type ${answer.contentType}`);
    if (typeof json.error !== 'string') problems.push("no {error} (Cube's shape)");
  } else {
    // Management and public routes answer RFC 9457 problem details with Tessera's code.
    if (!answer.contentType.includes('application/problem+json'))
      problems.push(`content-type ${answer.contentType}`);
    if (typeof json.code !== 'string') problems.push('no code');
    if (json.status !== answer.status) problems.push(`status ${JSON.stringify(json.status)}`);
    for (const key of ['type', 'title', 'detail'])
      if (typeof json[key] !== 'string') problems.push(`no ${key}`);
    if (json.code === 'validation_failed') {
      const errors = json.errors;
      if (
        !Array.isArray(errors) ||
        errors.length === 0 ||
        !errors.every((e) => typeof e?.field === 'string' && typeof e?.message === 'string')
      )
        problems.push('validation_failed without errors[] of {field, message}');
    }
  }
  return problems.map((p) => `4xx ${p}: ${answer.body.slice(0, 300)}`);
}

/** Whether a 400 names `field` (or a field inside it), in the words of each family. */
function namesField(family: Family, json: Record<string, unknown>, field: string): boolean {
  if (family === 'management' || family === 'public') {
    const errors = Array.isArray(json.errors) ? (json.errors as { field?: unknown }[]) : [];
    return errors.some(
      (e) => typeof e.field === 'string' && (e.field === field || e.field.startsWith(`${field}/`)),
    );
  }
  const text = String(family === 'scim' ? json.detail : json.error);
  return text.includes(field);
}

/**
 * The contract every answer keeps, whatever the request: never a 5xx; a 4xx in its family's error
 * shape; a malformed request refused with a 4xx, and a validation refusal naming the field.
 */
export function contractViolations(
  family: Family,
  request: { invalid: boolean; field?: string },
  answer: Answer,
): string[] {
  if (answer.status >= 500) return [`answered ${answer.status}: ${answer.body.slice(0, 300)}`];
  const json = answer.status >= 400 ? parse(answer.body) : undefined;
  const problems = answer.status >= 400 ? shapeProblems(family, answer, json) : [];
  if (request.invalid && answer.status < 400)
    problems.push(`accepted a malformed request with ${answer.status}: ${answer.body.slice(0, 200)}`);
  if (request.invalid && request.field && json) {
    if (answer.status !== 400) problems.push(`answered ${answer.status}, not 400 naming ${request.field}`);
    else if (!namesField(family, json, request.field))
      problems.push(`400 does not name ${request.field}: ${answer.body.slice(0, 300)}`);
  }
  return problems;
}
