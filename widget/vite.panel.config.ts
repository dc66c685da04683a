import { defineConfig, mergeConfig } from 'vite';
import { shared } from './vite.shared.js';

// Build 1 of 3: the panel (Preact app) as ES modules with hashed names, loaded by widget.js on first
// open. Hashed files never change, so the server caches them forever.
export default defineConfig(
  mergeConfig(shared, {
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      manifest: true,
      rollupOptions: {
        input: { panel: 'src/panel/panel.tsx' },
        preserveEntrySignatures: 'exports-only',
        output: { format: 'es', entryFileNames: 'widget/[name]-[hash].js', chunkFileNames: 'widget/[name]-[hash].js' },
      },
    },
  }),
);
