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
    // The test doubles and the demo (the Admin stand-in, the print-service emulator, `demo`, `start --dev`) live in
    // src/dev/; production code imports nothing from there. The command root (src/cli.ts) is the one door: the
    // `emulator` and `demo` commands and `start --dev` are commands of the same binary.
    files: ['src/**/*.ts'],
    ignores: ['src/dev/**', 'src/cli.ts', 'src/**/*.test.ts'],
    // First: the layers' own rules below replace this one in their folders, and each repeats its pattern.
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/dev/*', '**/dev/**'], message: 'production code imports nothing from src/dev/ (stand-in, emulator, demo).' }] },
      ],
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
              group: ['../bridge/*', '../queue/*', '../app/*', '../admin/*', '../web/*', '../dev/*', '../storage/*', '../adapters/*', '../print-service/client*', '../shopify/admin*', '../shopify/sessions*', '../shopify/auth*', '../shopify/webhook*'],
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
        {
          patterns: [
            { group: ['**/queue/*', '**/app/*', '**/admin/*', '**/web/*'], message: 'src/bridge/ (use cases) imports nothing from the layers that call it.' },
            { group: ['**/dev/*', '**/dev/**'], message: 'production code imports nothing from src/dev/ (stand-in, emulator, demo).' },
            {
              group: ['**/storage/*', '**/adapters/*'],
              message: 'src/bridge/ (use cases) reaches storage and the outside only through its ports (src/bridge/ports.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['bin/**/*.js', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
