/**
 * The web console's build. `npm start` builds it into DATA_DIR/console and serves it at /; the CDK stack
 * builds it while synthesizing and uploads it to the console bucket behind CloudFront;
 * `npm run build:web` writes web/dist by hand.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npm run dev:web`: the console with hot reload on :5173, its /api/ calls passed to `npm start`.
  server: { host: '127.0.0.1', proxy: { '/api/': process.env.API_URL ?? 'http://127.0.0.1:8000' } },
});
