import type { DialectName } from '@tessera/semantic';
import { kindOf } from './kinds/index.ts';
import type { StoredSettings } from './kinds/kind.ts';

/**
 * The dialect a deployment's queries compile to, read from its data-source settings' kind:
 * compiling (and `/v1/sql`, `/v1/dry-run`, which run nothing) never opens a connection to find it out.
 */
export function dialectOf(deployment: { data_source: unknown }): DialectName {
  return kindOf(deployment.data_source as StoredSettings).dialect;
}
