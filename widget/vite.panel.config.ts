import { defineConfig, mergeConfig } from 'vite';
import { shared } from './vite.shared.js';

// Build 1 of 3: the panel (Preact app) as ES modules with hashed names, loaded by widget.js on first
// open. Hashed files never change, so the server caches them forever.
// Loaded on demand (dynamic import()): the locale tables and the rarely seen views.
const LAZY =
  /\/src\/(watch\.ts|styles\/badge\.css|state\/validate\.ts|i18n\/\w+\.ts|components\/(Article|Files|Rating|Tickets|Turnstile|markdown)\.tsx)/;

export default defineConfig(
  mergeConfig(shared, {
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      manifest: true,
      rollupOptions: {
        // watch.ts: the unread watcher the launcher loads for returning customers (no Preact in it).
        input: { panel: 'src/panel/panel.tsx', watch: 'src/watch.ts' },
        preserveEntrySignatures: 'allow-extension',
        output: {
          format: 'es',
          entryFileNames: 'widget/[name]-[hash].js',
          chunkFileNames: 'widget/[name]-[hash].js',
          // What the lazily loaded views share with the panel (Preact, signals, the store) stays in the
          // panel's file: split into chunks of their own it would cost requests and compress worse.
          codeSplitting: { groups: [{ name: (id: string) => (LAZY.test(id) ? null : 'panel') }] },
        },
      },
    },
  }),
);
