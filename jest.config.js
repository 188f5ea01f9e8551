// One jest run over every workspace; each test file isolates itself (own database, own NATS namespace).
export default {
  testEnvironment: 'node',
  testEnvironmentOptions: { customExportConditions: ['source', 'node', 'node-addons'] },
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/**/test/**/*.test.ts', '<rootDir>/tests-e2e/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // eventsource-parser (of the MCP SDK's client) exports its TypeScript under the `source` condition
  // these tests resolve with: it is transformed like ours; every other dependency is not.
  transformIgnorePatterns: [
    '/node_modules/(?!(\\.pnpm/eventsource-parser@[^/]+/node_modules/)?eventsource-parser/)',
  ],
  maxWorkers: process.env.CI ? 2 : '50%',
  testTimeout: 30000,
  // Log lines of the whole run are captured and scanned for the secrets the tests used.
  globalSetup: '<rootDir>/scripts/jest-global-setup.js',
  globalTeardown: '<rootDir>/scripts/jest-global-teardown.js',
};
