import { defineConfig } from 'vitest/config';

// A run of one check file (EXIT_CODE_CHECK: fails or passes) with the PostgreSQL set-up loaded
// (exit-code.test.ts starts it).
export default defineConfig({
  test: {
    include: [`src/test-support/exit-code/${process.env.EXIT_CODE_CHECK ?? 'fails'}-on-purpose.check.ts`],
    globalSetup: ['src/test-support/postgres-setup.ts'],
  },
});
