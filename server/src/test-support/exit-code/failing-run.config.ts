import { defineConfig } from 'vitest/config';

// A run of one failing test with the PostgreSQL set-up loaded (exit-code.test.ts starts it).
export default defineConfig({
  test: {
    include: ['src/test-support/exit-code/fails-on-purpose.check.ts'],
    globalSetup: ['src/test-support/postgres-setup.ts'],
  },
});
