import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The SDK's internals (`@temporalio/common/lib/time`, …) change without notice: import its public entry points.
const sdkInternals = {
  group: ['@temporalio/*/lib/*', '@temporalio/*/lib'],
  message: "Import the Temporal SDK's public entry points, not its lib/ internals.",
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', 'coverage/'] },
  js.configs.recommended,
  { files: ['**/*.js'], languageOptions: { globals: { module: 'writable', require: 'readonly' } } },
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [sdkInternals] }] },
  },
  {
    // The codec is below the configuration: src/config.ts parses its keys, the codec never reads the config.
    files: ['src/codec/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            sdkInternals,
            { group: ['**/config'], message: 'src/codec does not depend on src/config.ts.' },
          ],
        },
      ],
    },
  },
  {
    // The sandbox's core reaches a provider's folder only through modes.ts, where each one registers.
    files: ['src/sandbox/*.ts'],
    ignores: ['src/sandbox/modes.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            sdkInternals,
            { regex: '^\\./[^/]+/', message: 'The sandbox core imports provider folders only in modes.ts.' },
          ],
        },
      ],
    },
  },
  {
    // A provider's sandbox folder builds on the core, never on another provider's folder.
    files: ['src/sandbox/*/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            sdkInternals,
            {
              regex: '^\\.\\./[^./][^/]*/',
              message: "A sandbox provider folder imports the core, not another's.",
            },
          ],
        },
      ],
    },
  },
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Activities and handlers are async by contract even when their body needs no await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node APIs, no I/O libraries.
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            sdkInternals,
            {
              group: ['node:*', 'fs', 'path', 'crypto', 'http', 'https', 'os', 'child_process'],
              message: 'Workflow code must stay deterministic: no Node APIs.',
            },
            {
              group: [
                'axios',
                'zod',
                'pino',
                'fastify',
                '@temporalio/client',
                '@temporalio/worker',
                '@temporalio/activity',
              ],
              message: 'Workflow code must not import I/O or validation libraries.',
            },
          ],
        },
      ],
    },
  },
  {
    // Import direction: the rest of the service knows workflows only by their contracts (definitions and
    // search attributes); a workflow's own code reaches it as types, for typed handles.
    files: ['src/**/*.ts'],
    ignores: ['src/workflows/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '/workflows/(?!(.*definitions|search-attributes)$)',
              allowTypeImports: true,
              message: 'Outside src/workflows, import only definitions.ts files and search-attributes.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    // Workflows call activities through proxies: activity and provider code reaches them as types only.
    files: ['src/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/activities/**', '**/activities', '**/providers/**'],
              allowTypeImports: true,
              message: 'Workflows import activities and providers as types only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON answers of real HTTP calls; asserting on them is the point, typing each one is noise.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
