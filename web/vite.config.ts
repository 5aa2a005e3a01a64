/** The web explorer's build: `vite build --config web/vite.config.ts` writes dist/web/, which `quarry serve` serves. */
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // Absolute asset URLs: the app is served at every history route (/nodes/<uuid> too). The server rewrites them
  // when it is published under a path (--public-url).
  base: '/',
  // No devtools or hot reload in the served build; the preset's JSX and preact/compat aliases are what we need.
  plugins: [preact({ devToolsEnabled: false, prefreshEnabled: false })],
  build: {
    outDir: fileURLToPath(new URL('../dist/web/', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Heavy parts (3D, graph, plots) are split into chunks loaded on demand; this only warns beyond them.
    chunkSizeWarningLimit: 1500,
    reportCompressedSize: true,
  },
});
