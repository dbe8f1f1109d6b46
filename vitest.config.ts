import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
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
