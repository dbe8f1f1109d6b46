import type { Reporter, TestModule } from 'vitest/node';

/**
 * Ends a run with one plain line, `Tests: N passed, N failed, N skipped`, which CI systems that
 * do not parse vitest's own summary can read.
 */
export default class SummaryReporter implements Reporter {
  private line = '';

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed += 1;
    }
    this.line = `Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`;
    // The default reporter prints its summary after this hook; write ours once it has.
    process.once('exit', () => process.stdout.write(`\n${this.line}\n`));
  }
}
