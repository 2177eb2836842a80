/**
 * The chart-spec preparation lives in the dashboard document package (packages/dashboard/src/
 * chart-spec.ts), shared with the server's renderer; this path stays for the viewer's and
 * Explore's imports.
 */
export { chartSpec, grainFormats, titleAtGrain } from '@tessera/dashboard';
