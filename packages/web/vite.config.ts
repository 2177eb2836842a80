import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The web app's build (DESIGN.md "Web app and sessions"): one bundle, served by the server from
 * `dist/`. `tessera-source` makes `@tessera/client` resolve to its TypeScript sources, so that a
 * fresh clone builds without building the client package first.
 */
export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['tessera-source'] },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 2000 },
  server: { proxy: { '/api': 'http://127.0.0.1:3000', '/v1': 'http://127.0.0.1:3000' } },
});
