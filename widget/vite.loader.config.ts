import { readFileSync } from 'node:fs';
import { defineConfig, mergeConfig } from 'vite';
import { shared } from './vite.shared.js';

// Build 2 of 3: widget.js, the classic script a page loads. It needs the panel's hashed file name,
// which build 1 wrote to the manifest.
const manifest = JSON.parse(readFileSync(new URL('./dist/.vite/manifest.json', import.meta.url), 'utf8')) as Record<
  string,
  { file: string; isEntry?: boolean }
>;
const panel = Object.values(manifest).find((m) => m.isEntry)!.file;

export default defineConfig(
  mergeConfig(shared, {
    define: { __PANEL_FILE__: JSON.stringify(panel) },
    build: {
      outDir: 'dist',
      emptyOutDir: false,
      lib: { entry: 'src/loader.ts', formats: ['iife'], name: 'TicketingLoader', fileName: () => 'widget.js' },
    },
  }),
);
