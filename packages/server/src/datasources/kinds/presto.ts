import { protocolKind } from './trino.ts';

/**
 * Presto (prestodb, also Amazon EMR's Presto and Ahana): Trino's client protocol with X-Presto-*
 * headers (trino-driver.ts), compiled to the Presto dialect, which refuses time zones other than
 * UTC rather than guess how the cluster reads them.
 */
export const prestoKind = protocolKind({
  type: 'presto',
  label: 'Presto',
  description: 'Presto (prestodb); queries in UTC only',
});
