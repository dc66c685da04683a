import { defineConfig } from 'vite';

// The console is served by the server at /console/: index.html (never cached) names the hashed files
// under /console/assets/ (cached forever). No inline script or style anywhere, for the strict CSP.
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    cssTarget: ['chrome100', 'edge100', 'firefox100', 'safari15'],
    // Vite would inline small assets as data: URLs and add a modulepreload polyfill as inline code;
    // neither is wanted under `script-src 'self'`.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
    // Two pages: the app, and the page the design screen frames to show the real widget (its own CSP).
    rollupOptions: { input: { index: 'index.html', 'widget-preview': 'widget-preview.html' } },
  },
  logLevel: 'warn',
});
