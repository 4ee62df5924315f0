import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The SDK's internals (`@temporalio/common/lib/time`, …) change without notice: import its public entry points.
const sdkInternals = {
  group: ['@temporalio/*/lib/*', '@temporalio/*/lib'],
  message: "Import the Temporal SDK's public entry points, not its lib/ internals.",
};

// The layers of src, bottom up. A file imports from its own layer and the layers below it, never from one above,
// types included. No path is in two layers.
const layers = [
  // Values every side shares (configuration, durations, currency decimals, the logger) and the payload codec.
  ['src/*.ts', 'src/config/**', 'src/codec/**'],
  // Helpers that admit callers, shared by the HTTP API and the characters service.
  ['src/auth/**'],
  // The provider port: what the service asks of any provider, in the lifecycle's vocabulary.
  ['src/providers/!(registry|shared-capture-translations).ts'],
  // One folder per provider: its client, wire formats, webhook signatures, event parsing.
  ['src/providers/*/**'],
  // The one place each provider is registered, and the adapters' pure translations workflow code uses.
  ['src/providers/@(registry|shared-capture-translations).ts'],
  // The local provider: it speaks the adapters' wire formats and knows nothing of the service.
  ['src/sandbox/**'],
  // The GraphQL characters service and its typed client.
  ['src/characters/**'],
  // Workflows' contracts (ids, signals, queries, Updates, activity contracts) and the search attributes.
  ['src/workflows/**/definitions.ts', 'src/workflows/**/search-attributes.ts'],
  // How every run of a lifecycle starts (the client library's, used by the webhook activity that reopens one).
  ['src/client/@(lifecycle-starts).ts'],
  // Activities: every call to a provider or the characters service; they implement the contracts.
  ['src/activities/**'],
  // Deterministic workflow code: it reaches its activities through proxies typed by them.
  ['src/workflows/**/!(definitions|search-attributes).ts'],
  // Typed Temporal clients of the workflows: the lifecycle library, the characters import.
  ['src/client/!(lifecycle-starts).ts'],
  // The webhook side outside workflows: starting verifications and subscriptions.
  ['src/webhooks/**'],
  // HTTP for order systems and webhook deliveries.
  ['src/api/**'],
  // The payments Nexus service: the API's schemas and error classification, in Nexus terms.
  ['src/nexus/**'],
  // The worker process and its workflow bundle.
  ['src/workers/**'],
  // One-shot commands.
  ['src/cli/**'],
  // npm start and npm run cluster.
  ['src/dev/**'],
];

// One zone per layer: its files may not import the layers above.
const layerZones = layers.slice(0, -1).map((files, index) => ({
  target: files,
  from: layers.slice(index + 1).flat(),
  message: `Layer ${index} (${files.join(', ')}) imports only its own and lower layers (eslint.config.mjs).`,
}));

// A provider's wire format stays in its folder: above the adapters, only the registry and the provider's own
// sandbox folder reach one; everything else goes through the port.
const adapterZone = {
  target: ['src/!(providers|sandbox)/**', 'src/*.ts', 'src/sandbox/*.ts'],
  from: ['src/providers/*/**'],
  message:
    'Only src/providers/registry.ts, src/providers/shared-capture-translations.ts and src/sandbox/<provider>/ import a provider adapter: use the port.',
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
    // The codec is below the configuration: src/config/ parses its keys, the codec never reads the config.
    files: ['src/codec/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            sdkInternals,
            { group: ['**/config', '**/config/**'], message: 'src/codec does not depend on src/config/.' },
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
    // Workflows call activities through proxies: activity and provider code reaches them as types only, but
    // for the adapters' pure translations of shared capture ids.
    files: ['src/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/activities/**',
                '**/activities',
                '**/providers/**',
                '!**/providers/shared-capture-translations',
              ],
              allowTypeImports: true,
              message: 'Workflows import activities and providers as types only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Every layer points down, and no module reaches itself again through its imports.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { basePath: import.meta.dirname, zones: [...layerZones, adapterZone] },
      ],
      'import-x/no-cycle': 'error',
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
