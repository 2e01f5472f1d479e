/** Unit tests sit next to the code (libs/, apps/); e2e, contract and process tests in test/. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
  },
];

const moduleNameMapper = {
  '^@im/(.*)$': '<rootDir>/libs/$1/src',
};

const common = { rootDir: __dirname, testEnvironment: 'node', transform: { '^.+\\.ts$': swc }, moduleNameMapper };

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.spec.ts'] },
  ],
};
