// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // Layers (issue 24): the order model is the bottom one and knows nothing of the use cases, queues, pages, Shopify
    // or the test doubles above it.
    files: ['src/orders/**/*.ts'],
    ignores: ['src/orders/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // Pure readers (../shopify/json.js, the lossless JSON parser) stay allowed; anything that talks to Shopify does not.
              group: ['../bridge/*', '../queue/*', '../app/*', '../admin/*', '../web/*', '../demo/*', '../emulator/*', '../print-service/client*', '../shopify/admin*', '../shopify/sessions*', '../shopify/auth*', '../shopify/webhook*'],
              message: 'src/orders/ is the order model: it imports nothing from the layers above it.',
            },
          ],
        },
      ],
    },
  },
  {
    // The use cases take their dependencies as ports (src/bridge/ports.ts) and their jobs (src/bridge/jobs.ts): they
    // import nothing from the queues, the composition root, the pages or the web routes that call them.
    files: ['src/bridge/**/*.ts'],
    ignores: ['src/bridge/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/queue/*', '**/app/*', '**/admin/*', '**/web/*'], message: 'src/bridge/ (use cases) imports nothing from the layers that call it.' }] },
      ],
    },
  },
  {
    files: ['bin/**/*.js', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
