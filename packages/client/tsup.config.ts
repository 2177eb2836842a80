import { defineConfig } from 'tsup';

/**
 * ESM and CommonJS builds of the two entry points, with type declarations. `splitting` puts the
 * code both entries use into shared chunks, so that `/react` and `.` share one ApiError class.
 * Dependencies and peer dependencies stay external; `platform: 'neutral'` keeps Node built-ins out.
 */
export default defineConfig({
  entry: { index: 'src/index.ts', react: 'src/react/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  splitting: true,
  clean: true,
  platform: 'neutral',
  target: 'es2022',
  tsconfig: 'tsconfig.build.json',
});
