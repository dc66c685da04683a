import type { UserConfig } from 'vite';

/** What every widget build shares: Preact's JSX, modern but not bleeding-edge syntax. */
export const shared: UserConfig = {
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    target: 'es2020',
    // Browsers with native logical properties (inset-inline-end, …). An older CSS target makes the
    // minifier "lower" them into :lang()-based fallbacks that misplace the launcher inside :host.
    cssTarget: ['chrome100', 'edge100', 'firefox100', 'safari15'],
    sourcemap: false,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
};
