/**
 * The layering check (`npm run layers`, run by .ci/run). DESIGN.md "Packages" and "Inside
 * packages/server/src" say who may import whom; this file makes those sentences fail the build.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle makes load order matter and hides which module owns what.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'semantic-is-pure',
      severity: 'error',
      comment: 'packages/semantic is a pure library: it imports nothing of ours (DESIGN.md "Packages").',
      from: { path: '^packages/semantic/' },
      to: { path: '^packages/(server|client|web)/' },
    },
    {
      name: 'dashboard-model-is-pure',
      severity: 'error',
      comment:
        'packages/dashboard, the dashboard document (spec 2.2) shared by the server and the web app, imports nothing of ours.',
      from: { path: '^packages/dashboard/' },
      to: { path: '^packages/(server|semantic|client|web)/' },
    },
    {
      name: 'client-imports-no-server',
      severity: 'error',
      comment: 'The typed client imports nothing of ours at run time (DESIGN.md "Packages").',
      from: { path: '^packages/client/src/' },
      to: { path: '^packages/(server|semantic|web)/' },
    },
    {
      name: 'server-imports-only-client-formatting',
      severity: 'error',
      comment:
        'The server may import the client package only for its pure table formatting (format/), shared with the web viewer so that an emailed table reads as the page; never the HTTP client.',
      from: { path: '^packages/server/' },
      to: { path: '^packages/client/', pathNot: '^packages/client/src/format/[^/]+\\.ts$' },
    },
    {
      name: 'web-only-through-client',
      severity: 'error',
      comment: 'The web app calls the server only through the generated client (DESIGN.md "Web app").',
      from: { path: '^packages/web/src/' },
      to: { path: '^packages/(server|semantic)/' },
    },
    {
      name: 'modules-do-not-import-http',
      severity: 'error',
      comment:
        'Modules are Fastify plugins given their services by the composition root; http/ assembles them, never the reverse.',
      from: { path: '^packages/server/src/modules/' },
      to: { path: '^packages/server/src/http/' },
    },
    {
      name: 'routes-do-not-import-repositories',
      severity: 'error',
      comment: 'A route never talks SQL: it calls a service (DESIGN.md "Inside packages/server/src").',
      from: { path: '^packages/server/src/modules/[^/]+/[a-z-]*routes\\.ts$' },
      to: { path: '/[a-z-]*repository\\.ts$' },
    },
    {
      name: 'modules-do-not-import-other-modules-repositories',
      severity: 'error',
      comment:
        "A module reaches another module's rows through that module's service or a narrow interface it declares itself; composition.ts wires the repositories (issue 22 item 0).",
      from: { path: '^packages/server/src/modules/([^/]+)/' },
      to: {
        path: '^packages/server/src/modules/.+/[a-z-]*repository[.]ts$',
        pathNot: '^packages/server/src/modules/$1/',
      },
    },
    {
      name: 'production-code-does-not-import-tests',
      severity: 'error',
      comment: 'Test helpers stay out of what ships.',
      from: { path: '^packages/[^/]+/src/', pathNot: '\\.test\\.ts$|test-support\\.ts$|test-client\\.ts$' },
      to: { path: '(\\.test\\.ts$|/test/|test-support\\.ts$|test-client\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
