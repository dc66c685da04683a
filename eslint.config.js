import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-control-regex': 'off', // control characters are exactly what some checks look for
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Type-aware: a promise nobody awaits or catches, or one handed to something that ignores what it
    // returns, loses its rejection. Only these rules: the rest of the type-checked set is mostly about
    // `any` in tests. (With type information `pnpm lint` takes about three times as long.)
    files: ['server/src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // The same two rules for the browser code (src only: its tests run in jsdom or Chromium and are
    // short). An async event handler (onClick={async …}) is how Preact code is written; what it
    // returns is ignored by design, so attributes are not checked for a promise.
    files: ['widget/src/**/*.{ts,tsx}', 'console/src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    // Tests read API answers whose shape each test asserts; typing every body would add noise, not safety.
    files: ['**/*.test.ts', '**/test-support/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The demo pages' own small scripts run in the browser, next to the snippet's global.
    files: ['demo-site/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', Ticketing: 'writable' },
    },
  },
);
