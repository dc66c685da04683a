import { defineConfig, mergeConfig } from 'vite';
import { shared } from './vite.shared.js';

// Build 1 of 3: the panel (Preact app) as ES modules with hashed names, loaded by widget.js on first
// open. Hashed files never change, so the server caches them forever.
// Loaded on demand (dynamic import()): the locale tables and the rarely seen views.
// The Markdown parser (markdown-it and what it imports) goes with markdown.tsx.
const LAZY =
  /\/src\/(watch\.ts|styles\/badge\.css|state\/validate\.ts|i18n\/\w+\.ts|components\/(Article|Files|Rating|Tickets|Turnstile|Thread|ReplyBox|markdown|plain-text)\.tsx)|\/node_modules\/(\.pnpm\/)?(markdown-it|mdurl|uc\.micro|entities|linkify-it|punycode\.js)[@/]/;

export default defineConfig(
  mergeConfig(shared, {
    build: {
      // No preloading of what a lazily loaded view imports (markdown.tsx's chunk imports plain-text's):
      // it adds <link rel="modulepreload"> to the host page's <head> and lists those files in the
      // panel, which has no bytes to spare. A view's imports are fetched when its file is read instead.
      modulePreload: false,
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
