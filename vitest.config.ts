import { defaultServerConditions } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';

// The simulator package is resolved to its TypeScript sources (its `switchyard-source` export), so
// `npm test` needs no build of it; the built CLI that tests spawn loads its dist/ instead.
// Otherwise Vitest's own defaults: Vite's server conditions without `module` (whose ESM builds,
// such as @smithy's dist-es, Node cannot load as they are).
const conditions = ['switchyard-source', ...defaultServerConditions.filter((condition) => condition !== 'module')];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['./test/helpers/build-page-once.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'suites', include: ['src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/load/**'], sequence: { groupOrder: 0 } },
      },
      // The load probes (issue 17) measure latency and heap under a set request rate: they run
      // after every other suite has finished, one file at a time, so that nothing else shares
      // the cores with them.
      { extends: true, test: { name: 'load', include: ['test/load/**/*.test.ts'], poolOptions: { forks: { singleFork: true } }, sequence: { groupOrder: 1 } } },
    ],
  },
});
