import { defineConfig } from 'vitest/config';

// The long reliability runs (fuzzing, crash trials): `pnpm test:long`, also run by .ci/run.
export default defineConfig({
  test: {
    include: ['src/**/*.long.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    // Ends what a file left running (child servers), as in the main suite.
    setupFiles: ['src/test-support/per-file.ts'],
  },
});
