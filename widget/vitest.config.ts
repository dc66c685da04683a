import { defineConfig } from 'vitest/config';

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  define: {
    __PANEL_FILE__: JSON.stringify('widget/panel-test.js'),
    __WATCH_FILE__: JSON.stringify('widget/watch-test.js'),
  },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'happy-dom',
    // The page the widget is embedded in: another origin than the API, as on a real site.
    environmentOptions: { happyDOM: { url: 'http://shop.test/cart' } },
    setupFiles: ['src/test-support/fetch-cache.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    maxWorkers: 2,
  },
});
