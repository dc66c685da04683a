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
