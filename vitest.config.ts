import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least two test files at a time, also on two cores (vitest's default there is one): most
    // suites wait on spawned servers, CLIs and databases rather than compute, and the suites took
    // ~11 min one at a time against ~7 min two at a time here. The load probes below still run
    // alone, after everything else.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['./test/helpers/build-page-once.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'suites', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/load/**'], sequence: { groupOrder: 0 } },
      },
      // The load probes (issue 17) measure latency and heap under a set request rate: they run
      // after every other suite has finished, one file at a time, so that nothing else shares
      // the cores with them.
      { extends: true, test: { name: 'load', include: ['test/load/**/*.test.ts'], poolOptions: { forks: { singleFork: true } }, sequence: { groupOrder: 1 } } },
    ],
  },
});
