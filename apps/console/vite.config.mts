import preact from '@preact/preset-vite';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));

/** `npm run build` writes the console to dist/console, which the api serves at / (apps/api/src/console). */
export default defineConfig({
  root: here,
  plugins: [preact({ devToolsEnabled: false, prefreshEnabled: false })],
  build: {
    outDir: resolve(here, '../../dist/console'),
    emptyOutDir: true,
    // Chromium and Safari of the last two years: no legacy transforms, smaller scripts.
    target: 'es2022',
    reportCompressedSize: false,
  },
});
