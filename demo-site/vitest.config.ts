import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 60_000,
    // One Chromium at a time: the machine has two cores, and the server needs one.
    fileParallelism: false,
    // A page under a loaded CI machine takes seconds, not vitest's default second, to show what a poll waits for.
    expect: { poll: { timeout: 10_000 } },
  },
});
