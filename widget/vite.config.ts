import { defineConfig } from 'vite';

// The script-tag build: widget.js, what a host page loads before anyone clicks. The widget issue adds
// the lazily loaded panel and the ES library build.
export default defineConfig({
  build: {
    target: 'es2019',
    outDir: 'dist',
    emptyOutDir: true,
    lib: { entry: 'src/loader.ts', formats: ['iife'], name: 'TicketingLoader', fileName: () => 'widget.js' },
  },
});
