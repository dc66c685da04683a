import { defineConfig } from 'vitest/config';

// Tests that need Debian packages beyond Node (systemd-analyze, nginx, caddy, dovecot, pgbouncer) and a
// build: `pnpm test:system`, run by .ci/run after it installs them.
export default defineConfig({
  test: {
    include: ['src/**/*.system.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    // Ends what a file left running (child servers), as in the main suite.
    setupFiles: ['src/test-support/per-file.ts'],
    // One PostgreSQL for the run, as in the main suite's `postgres` project (PgBouncer's test sits in front of it).
    globalSetup: ['src/test-support/postgres-setup.ts'],
  },
});
