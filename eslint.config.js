import { join } from 'node:path';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import tseslint from 'typescript-eslint';
import meridian from './scripts/eslint-rules.js';

/** The services; each owns its code, and nothing else reaches into it (DESIGN.md, Shape). */
const SERVICES = ['identity', 'billing', 'analysis', 'data', 'x402', 'requests'];

/** Pure rules and types take time as an argument and touch no database, bus, HTTP or file. */
const DOMAIN_FORBIDDEN = [
  'kysely',
  'nats',
  '@nats-io/*',
  'express',
  '@meridian/http-kit',
  '@meridian/bus',
  '@meridian/db',
  'pg',
  'fs',
  'fs/promises',
  'node:fs',
  'node:fs/promises',
  ...['dns', 'dns/promises', 'net', 'tls', 'http', 'https', 'dgram', 'child_process'].flatMap((name) => [
    name,
    `node:${name}`,
  ]),
];

const either = (names) => names.join('|');

/** A service's package or a path into a service's folder (relative or from the root). */
function serviceImports(names, message) {
  return [
    { regex: `^@meridian/(${either(names)})(/.*)?$`, message },
    { regex: `(^|/)services/(${either(names)})(/|$)`, message },
    { regex: `^(\\.\\./)+(${either(names)})/(src|test|bench)(/|$)`, message },
  ];
}

const OTHER_SERVICE = 'A service never imports another service: use HTTP, NATS or an event.';
const SERVICE_SRC = 'Nothing outside a service imports its src/ or the service itself.';
const DOMAIN =
  'domain/ is pure: no Kysely, NATS, express, HTTP kit, bus, db, pg, fs, network socket or child process.';

function domainRules() {
  return [
    {
      group: DOMAIN_FORBIDDEN.filter((name) => name !== '@nats-io/*'),
      message: DOMAIN,
    },
    { group: ['@nats-io/*'], message: DOMAIN },
  ];
}

/** The boundaries of one service: no other service; in domain/ also no I/O. */
function serviceBoundaries(service) {
  const others = SERVICES.filter((name) => name !== service);
  const patterns = serviceImports(others, OTHER_SERVICE);
  return [
    {
      files: [`services/${service}/**/*.ts`],
      rules: { 'no-restricted-imports': ['error', { patterns }] },
    },
    {
      files: [`services/${service}/src/domain/**/*.ts`],
      rules: {
        'no-restricted-imports': ['error', { patterns: [...patterns, ...domainRules()] }],
        ...NO_FETCH,
      },
    },
  ];
}

const NO_FETCH = {
  'no-restricted-globals': ['error', { name: 'fetch', message: DOMAIN.replace('HTTP kit', 'fetch') }],
  'no-restricted-properties': [
    'error',
    { object: 'globalThis', property: 'fetch', message: 'domain/ is pure: no fetch.' },
  ],
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Rules that need the types: a promise nobody awaits loses its rejection, a switch over a
    // union that misses a member answers the missing case with whatever follows the switch.
    // Each .ts file is typed by the nearest tsconfig.json (the root one, or the browser pages').
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // The sync-or-async answers of the hot paths (a cached verification, a leased rate-limit
      // token) are awaited together with Promise.all.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
    },
  },
  {
    // Comments say why in the code's own terms, never which issue asked or who should act.
    plugins: { meridian },
    rules: { 'meridian/no-addressed-comments': 'error' },
  },
  {
    // Sizes a reader can hold: lines as `wc -l` counts them, blank and comment lines included, in
    // every file, tests too (each test held to 80 lines); a frozen migration's `up` is history.
    files: ['**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 350, skipBlankLines: false, skipComments: false }],
      'meridian/max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }],
    },
  },
  { files: ['**/db/migrations/**'], rules: { 'meridian/max-lines-per-function': 'off' } },
  {
    // No circle of imports, type-only ones included (import-x's no-cycle, which skips those, made
    // to follow them: scripts/eslint-import-graph.js): a file needs only files below it, so each
    // can be read, tested and moved on its own. Imports resolve as tsc resolves them (the `source`
    // condition of the workspace packages); packages from the registry are not walked.
    files: ['**/*.ts'],
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: join(import.meta.dirname, 'tsconfig.json'),
          conditionNames: ['source', 'types', 'import', 'node', 'default'],
        }),
      ],
      'import-x/parsers': { [join(import.meta.dirname, 'scripts/eslint-import-graph.js')]: ['.ts'] },
    },
    rules: { 'meridian/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // What costs every process memory for nothing (docs/memory.md): an ES import of node:http
    // loads node's own undici and http2; localeCompare maps ICU's collation data.
    files: [
      'services/*/src/**/*.ts',
      'gateway/src/**/*.ts',
      'mcp/src/**/*.ts',
      'portal/src/**/*.ts',
      'packages/*/src/**/*.ts',
    ],
    // The chain's own process (local-chain's node and facilitator) is not one of those.
    ignores: [
      'packages/test-peers/**',
      'packages/local-chain/src/node/**',
      'packages/local-chain/src/facilitator/**',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[importKind='value'][source.value=/^(node:)?http$/]",
          message:
            'Use nodeHttp of @meridian/http-kit, or `import type`: an ES import of node:http loads undici and http2.',
        },
        {
          selector: "CallExpression[callee.property.name='localeCompare']",
          message: 'Use byCodeUnits of @meridian/contracts: the first localeCompare maps ICU collation data.',
        },
      ],
    },
  },
  {
    // Frozen migrations are written against Kysely<any> so they never depend on app types.
    files: ['**/db/migrations/**', '**/test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['bench/**', '**/bench/**', 'scripts/**', '**/scripts/**'],
    rules: { 'no-console': 'off' },
  },
  ...SERVICES.flatMap(serviceBoundaries),
  {
    // The edge, the shared packages, the black-box tests and the benchmark runner see services
    // only over the wire; scripts/start.ts, the all-in-one composition, imports their entry points.
    files: [
      'gateway/**/*.ts',
      'portal/**/*.ts',
      'mcp/**/*.ts',
      'packages/**/*.ts',
      'tests-e2e/**/*.ts',
      'bench/**/*.ts',
    ],
    rules: { 'no-restricted-imports': ['error', { patterns: serviceImports(SERVICES, SERVICE_SRC) }] },
  },
  {
    files: ['gateway/src/domain/**/*.ts', 'mcp/src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [...serviceImports(SERVICES, SERVICE_SRC), ...domainRules()] },
      ],
      ...NO_FETCH,
    },
  },
  {
    files: ['scripts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: `(^|/)services/(${either(SERVICES)})/src(/|$)`, message: SERVICE_SRC }] },
      ],
    },
  },
  {
    // The portal's pages run in the browser: the public API over fetch, never a server package.
    files: ['portal/src/pages/**/*.ts'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', location: 'readonly' } },
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@meridian/*', 'node:*'], message: 'Browser code: the public API only.' }] },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'localStorage', message: 'No secret or key in local storage.' },
      ],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly' } },
  },
);
