import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    exclude: ['src/**/*.long.test.ts', 'src/**/*.system.test.ts', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: test files that start child servers and write fsynced files run two at a time.
    maxWorkers: 2,
  },
});
