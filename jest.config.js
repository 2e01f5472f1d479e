/** Unit tests sit next to the code (libs/, apps/); e2e, contract and process tests in test/. */
// tsconfig's isolatedModules makes ts-jest transpile only: type errors are the build's job, and the suite stays fast.
const tsJest = ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }];

/** `@im/<lib>` is the library's index; `@im/<lib>/<adapter>` one of its adapters (tsconfig.json's paths say the same). */
const moduleNameMapper = {
  '^@im/([^/]+)$': '<rootDir>/libs/$1/src',
  '^@im/([^/]+)/([^/]+)$': '<rootDir>/libs/$1/src/adapters/$2',
};

/**
 * canonicalize (RFC 8785) ships only as an ES module: Node requires it natively
 * (libs/ledger-proof/src/jcs.ts), Jest's module system needs it turned into CommonJS.
 */
const esmOnly = ['canonicalize'];
const esmToCommonJs = ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs' } }];

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': tsJest, [`/node_modules/(${esmOnly.join('|')})/.+\\.js$`]: esmToCommonJs },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleNameMapper,
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.spec.ts'] },
    // The e2e suites of the write and read paths once more, on PostgreSQL (EVENT_STORE=postgres, READ_STORE=postgres).
    {
      ...common,
      displayName: 'e2e on PostgreSQL',
      testMatch: ['incidents', 'timeline', 'graphql', 'policy/policy', 'oncall', 'paging', 'webhook-delivery', 'insights', 'postmortem'].map((name) => `<rootDir>/test/${name}.e2e.spec.ts`),
      setupFilesAfterEnv: ['<rootDir>/test/support/on-postgres.ts'],
    },
  ],
};
