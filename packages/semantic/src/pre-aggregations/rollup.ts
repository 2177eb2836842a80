/**
 * Rollups (https://cube.dev/docs/product/caching/matching-pre-aggregations): the SQL that builds
 * one (build.ts), which rollup can answer a query (match.ts), and the query compiled against a
 * built rollup table (read.ts). A rollup table holds one row per group of its dimensions (and time
 * bucket), one column per member, named by the build query's aliases. Its members may come from
 * cubes joined to its own: the build is the planner's SQL for them, joins and fan-out included.
 */
export {
  isAdditive,
  type RollupBuild,
  type RollupSource,
  rollupBuildable,
  rollupBuildSql,
  rollupColumns,
  rollupJoinTree,
} from './build.ts';
export { rollupCanAnswer, rollupCovers } from './match.ts';
export { compileFromRollup } from './read.ts';
