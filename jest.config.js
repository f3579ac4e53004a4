// Jest runs the project as native ESM (NODE_OPTIONS=--experimental-vm-modules) because NestJS 12
// is ESM-only; @swc/jest strips types and keeps decorator metadata. `tsc --noEmit` is the type gate.
const swc = [
  '@swc/jest',
  {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      keepClassNames: true,
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};

export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
  reporters: ['default', '<rootDir>/test/support/closing-line-reporter.js'],
  // e2e tests start real apps, databases and child processes; on a two-core CI machine running
  // two files at once, a test that takes 5 s alone has been seen to take 35 s. A hang still fails.
  testTimeout: 60000,
  // Test files own their databases, ports and temp dirs, so they run side by side. Jest's default
  // on two cores is one worker; the suite mostly waits on I/O, and two halve its time here.
  maxWorkers: 2,
};
