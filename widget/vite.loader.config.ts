import { readFileSync } from 'node:fs';
import { defineConfig, mergeConfig, type Plugin } from 'vite';
import { shared } from './vite.shared.js';

// Build 2 of 3: widget.js, the classic script a page loads. It needs the panel's hashed file name,
// which build 1 wrote to the manifest.
const manifest = JSON.parse(readFileSync(new URL('./dist/.vite/manifest.json', import.meta.url), 'utf8')) as Record<
  string,
  { file: string; isEntry?: boolean }
>;
const panel = manifest['src/panel/panel.tsx']!.file;
const watch = manifest['src/watch.ts']!.file;

// V8's explicit compile hint (Chromium 136+): nearly every function of widget.js runs on load, so V8 compiles
// them all while streaming the script, off the page's main thread, instead of one by one on first call
// on it. A magic comment on the first line; added after minification, which would drop it.
const compileHint: Plugin = {
  name: 'compile-hint',
  generateBundle(_, bundle) {
    for (const chunk of Object.values(bundle))
      if (chunk.type === 'chunk') chunk.code = `//# allFunctionsCalledOnLoad\n${chunk.code}`;
  },
};

export default defineConfig(
  mergeConfig(shared, {
    define: { __PANEL_FILE__: JSON.stringify(panel), __WATCH_FILE__: JSON.stringify(watch) },
    plugins: [compileHint],
    build: {
      outDir: 'dist',
      emptyOutDir: false,
      lib: { entry: 'src/loader.ts', formats: ['iife'], name: 'TicketingLoader', fileName: () => 'widget.js' },
    },
  }),
);
