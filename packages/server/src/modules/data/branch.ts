import { MAIN_BRANCH } from '../data-model/service.ts';
import { forbidden } from './errors.ts';
import { type DataOperation, dataOperations } from './operations.ts';

export { MAIN_BRANCH };

/**
 * Tessera's own claims in a data-API token live under this key, set only by the server
 * (tokens/service.ts refuses a caller's security context that names it). `tessera.branch` is the
 * model branch the token may read; a token without it reads the production branch.
 */
export const TESSERA_CLAIMS = 'tessera';

/**
 * A branch token lives at most an hour. A branch is unreviewed model code: any developer can push
 * one with its access policies removed, so its token reads more than a production token with the
 * same security context would. Such a token belongs to one development session; if it leaks, an
 * hour bounds what it exposes, and a deleted branch recreated later under the same name is not
 * reachable with a token minted for the old one for long. Checked when minting and when reading.
 */
export const BRANCH_TOKEN_MAX_SECONDS = 3_600;

/** What a verified token grants beyond its security context: the branch it was minted for. */
export interface BranchGrant {
  /** Undefined for a production token. */
  branch?: string;
  /**
   * The data-API operations the token may call (an environment token's `scopes`, a meta-sync
   * token's `meta`, tokens/environment-service.ts); undefined: every operation.
   */
  operations?: DataOperation[];
}

/**
 * The one rule that picks the model branch of a data request, for every entry point (data API,
 * and later chat `activeBranchName` and embedding): the branch is the one the verified grant names,
 * else main. A requested branch (the `x-tessera-branch` header, a chat's `activeBranchName`) never
 * selects anything; naming a branch other than the granted one is refused (403 `{error}`), so a
 * client that expected another branch's model learns it instead of silently reading another one.
 */
export function decideBranch(grant: BranchGrant, requested: string | undefined): string {
  const branch = grant.branch ?? MAIN_BRANCH;
  if (requested !== undefined && requested !== '' && requested !== branch) {
    throw forbidden(
      grant.branch === undefined
        ? `This token reads the ${MAIN_BRANCH} branch only; a token for branch ${requested} comes from POST /api/v1/deployments/{id}/token with "branch"`
        : `This token was minted for branch ${branch}, not ${requested}`,
    );
  }
  return branch;
}

/**
 * Reads Tessera's claims from a verified JWT payload: the security context without them, and the
 * grant (a branch, the operations it may call). A malformed claim, or Tessera claims without
 * `iat`/`exp` or living longer than BRANCH_TOKEN_MAX_SECONDS (minted by hand with the API secret,
 * perhaps with an `iat` in the future), makes the token invalid.
 */
export function splitClaims(
  payload: Record<string, unknown>,
  nowSeconds = Math.floor(Date.now() / 1000),
): {
  securityContext: Record<string, unknown>;
  grant: BranchGrant;
} {
  if (!(TESSERA_CLAIMS in payload)) return { securityContext: payload, grant: {} };
  const { [TESSERA_CLAIMS]: claims, ...securityContext } = payload;
  const { branch, operations, ...unknown } = (
    typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? claims : { unknown: true }
  ) as { branch?: unknown; operations?: unknown };
  const { iat, exp } = payload;
  const valid =
    Object.keys(unknown).length === 0 &&
    (branch !== undefined || operations !== undefined) &&
    (branch === undefined || (typeof branch === 'string' && branch !== '')) &&
    (operations === undefined || validOperations(operations)) &&
    typeof iat === 'number' &&
    typeof exp === 'number' &&
    exp - iat <= BRANCH_TOKEN_MAX_SECONDS &&
    exp - nowSeconds <= BRANCH_TOKEN_MAX_SECONDS;
  if (!valid) throw forbidden('Invalid token');
  return {
    securityContext,
    grant: {
      ...(branch !== undefined ? { branch: branch as string } : {}),
      ...(operations !== undefined ? { operations: operations as DataOperation[] } : {}),
    },
  };
}

function validOperations(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((op) => (dataOperations as readonly unknown[]).includes(op))
  );
}

/** 403 when the token's grant names the operations it may call and this is none of them. */
export function checkOperation(grant: BranchGrant, operation: DataOperation): void {
  if (grant.operations && !grant.operations.includes(operation))
    throw forbidden(`This token may call ${grant.operations.join(', ')} only, not ${operation}`);
}
