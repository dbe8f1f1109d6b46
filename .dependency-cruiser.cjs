// The dependency rule of Switchyard, kept by a tool rather than by memory (issue 47, item 6;
// ARCHITECTURE.md, "Arrows run down"). `npm run check:deps` runs it (scripts/check-dependencies.mjs,
// which runs dependency-cruiser with this file and subtracts the known exceptions below), and CI
// runs that before the tests. `npm run check:deps -- --report` prints the folder-level upward
// edges and the cycles that are left, and which known exceptions are no longer needed.
//
// Run it through `npm run check:deps`, not `depcruise` alone: dependency-cruiser by itself does not
// know the known exceptions, so it reports them too.
'use strict';

/**
 * The layers of src/, top to bottom: a file imports from its own layer and from the layers below
 * it, never from a layer above. docs/architecture.md ("Layers") shows the same list; change both.
 * A new folder of src/ goes into this list (the check fails on a file outside every layer).
 * `paths` are folders (ending in /) or files, relative to the repository root.
 */
const layers = [
  { name: 'cli', paths: ['src/cli/'], holds: 'the command line: serve, admin, demo, simulate' },
  { name: 'composition', paths: ['src/app.ts', 'src/create-context.ts'], holds: 'builds the services (the app context) and the Fastify app' },
  { name: 'api', paths: ['src/api/'], holds: 'one folder per inbound style or resource group: routes, decoders, encoders' },
  { name: 'http', paths: ['src/http/'], holds: 'the edge: auth, caps, error envelope, validation, SSE writing' },
  {
    name: 'work',
    paths: ['src/generation/', 'src/media/', 'src/videos/', 'src/embeddings/', 'src/rerank/', 'src/moderations/', 'src/batches/', 'src/accounts/', 'src/messenger/', 'src/people/', 'src/redemption/', 'src/payments/', 'src/alerts/'],
    holds: 'what a route runs: text, media and video generation; embeddings; rerank; moderations; files and batches; account, messenger and payment operations; people and their sign-in; redemption codes; alerts',
  },
  { name: 'admission and tools', paths: ['src/limits/', 'src/hosted-tools/'], holds: 'request limits before a call; the hosted tools a text turn calls' },
  { name: 'app-context', paths: ['src/app-context.ts'], holds: 'the type of the services handed to the work above; none of its services imports it' },
  { name: 'services', paths: ['src/tasks/', 'src/telemetry/', 'src/metrics/', 'src/lifecycle/', 'src/audit/', 'src/cache/'], holds: 'the durable task engine, tracing, metrics, the server lifecycle (draining), the audit log, the response cache' },
  { name: 'routing', paths: ['src/routing/'], holds: 'candidates, the failover loop, breakers' },
  { name: 'billing', paths: ['src/billing/'], holds: "money: pricing, the ledger, leases, the books and the request log" },
  { name: 'providers', paths: ['src/providers/', 'src/outbound/'], holds: 'one folder per wire protocol, the adapter registries; outbound/ fetches user-supplied URLs (public addresses only)' },
  { name: 'wire', paths: ['src/wire/'], holds: 'the wire shapes an inbound style and its provider share, one folder per protocol' },
  { name: 'identity and catalog', paths: ['src/auth/', 'src/catalog/'], holds: 'keys and principals; the priced catalog built from config' },
  { name: 'config', paths: ['src/config/'], holds: 'YAML + environment → typed config' },
  {
    name: 'core and errors',
    paths: ['src/core/', 'src/errors/'],
    holds: 'canonical types, money, ids, clock; GatewayError, the code catalog, rendering per style (one vocabulary: a stream part carries an ErrorCode, an error names the parameter a model refused); no I/O',
  },
  { name: 'store', paths: ['src/store/'], holds: 'connections, dialects, migrations, retries' },
];

/** Files the layer rule does not apply to: colocated tests and their fixtures. */
const testFiles = ['\\.test\\.ts$', '/__fixtures__/'];

/**
 * What bench/ may import from src/: the public entry points only, so that a refactor inside
 * does not break the benchmarks (issue 47, item 5). The composition root, the config loader and the CLI: what an operator runs.
 * bench/investigations/ (one-off studies) is exempt.
 */
const benchEntryPoints = ['src/app.ts', 'src/create-context.ts', 'src/config/load-config.ts', 'src/cli/'];

/**
 * Imports the rules allow although they break them, each with the reason: `from`/`to` are files or
 * folders (ending in /); a cycle is excused when every file in it is listed. Empty: the violations
 * found when the rule was written (issue 47) are gone. An entry added here needs a reason a reviewer
 * accepts; `npm run check:deps -- --report` names entries no longer needed.
 */
const knownExceptions = [];

const escape = (path) => path.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
/** A folder or file of `layers` as a regular expression on a module's path. */
const toPattern = (path) => (path.endsWith('/') ? `^${escape(path)}` : `^${escape(path)}$`);

const layerRules = layers.slice(1).map((layer, index) => ({
  name: `layer:${layer.name}`,
  severity: 'error',
  comment: `${layer.name} (${layer.paths.join(', ')}) imports nothing from the layers above it: ${layers
    .slice(0, index + 1)
    .map((above) => above.name)
    .join(', ')}`,
  from: { path: layer.paths.map(toPattern), pathNot: testFiles },
  to: { path: layers.slice(0, index + 1).flatMap((above) => above.paths.map(toPattern)) },
}));

const config = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'No import cycle outside web/ (type-only imports count: a type cycle ties the files as much as a value one).',
      from: { pathNot: '^web/' },
      to: { circular: true },
    },
    {
      name: 'simulator-stands-apart',
      severity: 'error',
      comment: 'The simulator is an independent implementation of the wire formats: it imports nothing from src/.',
      from: { path: '^packages/simulator/' },
      to: { path: '^src/' },
    },
    {
      name: 'bench-public-entry-points',
      severity: 'error',
      comment: `bench/ imports only the public entry points of src/ (${benchEntryPoints.join(', ')}); one-off studies live in bench/investigations/.`,
      from: { path: '^bench/', pathNot: '^bench/investigations/' },
      to: { path: '^src/', pathNot: benchEntryPoints.map(toPattern) },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^test/open-responses/vendor/', '(^|/)node_modules/', '^dist/', '^packages/[^/]+/dist/'] },
    // `import type` counts: the AppContext type cycle was made of type imports only.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};

// Read by scripts/check-dependencies.mjs; not enumerable, because dependency-cruiser's schema
// allows no other keys in its configuration.
Object.defineProperty(config, 'layers', { value: layers, enumerable: false });
Object.defineProperty(config, 'knownExceptions', { value: knownExceptions, enumerable: false });
Object.defineProperty(config, 'testFiles', { value: testFiles, enumerable: false });

module.exports = config;
