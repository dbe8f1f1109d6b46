import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeCpuProfile } from '../../bench/summarize-cpu-profile.js';

// A profile as `node --cpu-prof` writes it: a start-up function sampled for the first 3 ms, a
// request handler for the next 2 ms, idle time, then the start-up function again.
const root = '/srv/switchyard';
const profile = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 3, 4] },
    { id: 2, callFrame: { functionName: 'compileModules', url: 'node:internal/modules/esm/utils', lineNumber: 10 } },
    { id: 3, callFrame: { functionName: 'handleTextRequest', url: `file://${root}/dist/api/shared/handle-text-request.js`, lineNumber: 9 } },
    { id: 4, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
  ],
  startTime: 1_000_000,
  samples: [2, 2, 2, 3, 3, 4, 2],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

describe('summarizeCpuProfile', () => {
  let directory: string;
  let file: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'profile-summary-'));
    file = join(directory, 'switchyard.cpuprofile');
    await writeFile(file, JSON.stringify(profile));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('counts every sample but idle without windows', () => {
    const summary = summarizeCpuProfile(file, root);
    expect(summary.sampledMs).toBe(6);
    expect(summary.self[0]).toEqual({ name: 'compileModules node:internal/modules/esm/utils:11', percent: 66.7 });
  });

  it('counts only the samples inside the measured windows', () => {
    // Samples fall at 1,001,000 … 1,007,000 µs; the window holds the handler's two.
    const summary = summarizeCpuProfile(file, root, 15, [{ fromMicros: 1_003_500, toMicros: 1_006_500 }]);
    expect(summary.sampledMs).toBe(2);
    expect(summary.self).toEqual([{ name: 'handleTextRequest src/api/shared/handle-text-request.ts (compiled):10', percent: 100 }]);
    expect(summary.ownInclusive).toEqual([{ name: 'handleTextRequest src/api/shared/handle-text-request.ts (compiled):10', percent: 100 }]);
    expect(summary.byArea).toEqual([{ name: 'src/api/', percent: 100 }]);
  });
});
