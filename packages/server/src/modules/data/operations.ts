/** The data API's operations: `/data/{deploymentId}{basePath}/v1/{operation}` (DESIGN.md "Addresses"). */
export const dataOperations = ['load', 'meta', 'sql', 'dry-run', 'cubesql'] as const;
export type DataOperation = (typeof dataOperations)[number];

/** The operation a path after `/data/{deploymentId}` names for a deployment's base path, if any. */
export function operationAt(path: string, basePath: string): DataOperation | undefined {
  return dataOperations.find((op) => path === `${basePath}/v1/${op}`);
}
