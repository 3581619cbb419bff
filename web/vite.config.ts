/**
 * The web console's build: `npm run build:web` writes static files to web/dist, which `npm start`
 * serves at / and the CDK stack uploads to the console bucket behind CloudFront.
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
});
