/**
 * The direction of dependencies, checked in `npm run lint` (dependency-cruiser). It is the
 * documentation of the layers that cannot go stale (docs/architecture.md describes them):
 *
 *   cli → app → features (runs, agents, sessions, tools, providers, mcp, messaging, board,
 *   studio) → platform (config, context, signals, ids, http, auth, audit, logging, telemetry,
 *   state, health, rate-limit, lazy, openapi)
 */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-feature',
      comment: 'src/platform is the layer below every feature: it may only import itself.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'features-import-no-app',
      comment: 'Only the CLI and main.ts compose the app; features never reach up into it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/app/', '^src/cli/', '^src/main\\.ts$'] },
      to: { path: '^src/app/' },
    },
    {
      name: 'only-main-imports-cli',
      comment: 'The CLI (nest-commander, CommonJS) stays out of everything the HTTP app loads.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/cli/', '^src/main\\.ts$'] },
      to: { path: '^src/cli/' },
    },
    {
      name: 'cli-loads-command-bodies-lazily',
      comment:
        'svc --version, usage and mistakes load no app: a command imports its body (the app, the ' +
        'state backend) with import() when it runs (serve-gateway, migrate-state, run-here).',
      severity: 'error',
      from: {
        path: '^src/cli/',
        pathNot: [
          '^src/cli/(serve-gateway|migrate-state|run-here|local-run-follower)\\.ts$',
          '\\.spec\\.ts$',
        ],
      },
      to: {
        path: '^src/(app|platform/state)/',
        dependencyTypesNot: ['dynamic-import', 'type-only'],
      },
    },
    {
      name: 'no-circular',
      comment: 'Modules that need each other are one module, or a third owns what they share.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'code-imports-no-tests',
      comment: 'Production code never loads test support (unit specs may).',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^test/' },
    },
    {
      name: 'code-imports-no-dev-dependencies',
      comment: 'What `npm ci --omit=dev` leaves out must not be needed at run time.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['\\.spec\\.ts$', '/testing/'] },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
