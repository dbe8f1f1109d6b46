import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { agentCliAvailable, agentCliPath, makeTempDirectory, runCli, wireModels } from './agent-cli.js';

/**
 * What Gemini CLI needs besides the base URL, key and model, none of which changes what it sends:
 * - `security.auth.selectedType`: 0.61.0 reads GOOGLE_GEMINI_BASE_URL without a selected auth type
 *   as its "gateway" auth type, which its own non-interactive check then refuses ("Invalid auth
 *   method selected."); selecting the API-key type, as its first-run dialog does, sends the same
 *   requests (x-goog-api-key, the base URL from GOOGLE_GEMINI_BASE_URL).
 * - offline: no usage statistics (Google's Clearcut telemetry) and no update checks.
 */
const offlineSettings = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  privacy: { usageStatisticsEnabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
};

// The real Gemini CLI in non-interactive mode (`-p`), with the gateway as its Gemini base URL.
describe.runIf(agentCliAvailable('gemini'))('Gemini CLI through the gateway', () => {
  let gateway: SimulatedGateway;
  let home: ReturnType<typeof makeTempDirectory>;

  beforeAll(async () => {
    gateway = await startSimulatedGateway({ credits: 1000 });
    home = makeTempDirectory('switchyard-gemini-');
    mkdirSync(join(home.path, '.gemini'));
    writeFileSync(join(home.path, '.gemini', 'settings.json'), JSON.stringify(offlineSettings));
  });

  afterAll(async () => {
    home?.remove();
    await gateway?.close();
  });

  function gemini(model: string, prompt: string, cwd: string, extra: string[] = []) {
    return runCli(agentCliPath('gemini'), ['-p', prompt, '-m', model, '--skip-trust', ...extra], {
      cwd,
      env: {
        HOME: home.path,
        GOOGLE_GEMINI_BASE_URL: gateway.url,
        GEMINI_API_KEY: gateway.key,
      },
    });
  }

  for (const { wire, model, upstream } of wireModels) {
    it(`prints the answer of a one-shot prompt on a ${wire}-wire model`, { timeout: 120_000 }, async () => {
      const work = makeTempDirectory('switchyard-gemini-work-');
      try {
        const run = await gemini(model, 'Say hello [[sim-text:Hello from the gateway]]', work.path);
        expect(run.code).toBe(0);
        expect(run.stdout.trim()).toBe(`Simulated reply from ${upstream}: Hello from the gateway`);
      } finally {
        work.remove();
      }
    });

    it(`runs the shell command the model asks for and answers with its output on a ${wire}-wire model`, { timeout: 120_000 }, async () => {
      const work = makeTempDirectory('switchyard-gemini-work-');
      try {
        // The shell computes 6*7, so "marker-42" in the answer can only come from the command's real
        // output (Gemini CLI blocks command substitution, hence expr and sed).
        const call = JSON.stringify({ command: "echo gemini-was-here > made.txt && expr 6 '*' 7 | sed s/^/marker-/", description: 'Create made.txt' });
        const run = await gemini(model, `Create made.txt [[sim-call:run_shell_command ${call}]]`, work.path, ['--approval-mode', 'yolo']);
        expect(run.stderr).not.toMatch(/Error when talking to Gemini API/);
        expect(run.code).toBe(0);
        expect(readFileSync(join(work.path, 'made.txt'), 'utf8')).toBe('gemini-was-here\n');
        expect(run.stdout.trim()).toMatch(/^Tool result: .*\bmarker-42\b/);
        expect(run.stdout).not.toContain('expr');
      } finally {
        work.remove();
      }
    });
  }

  it('stops at once on a model the gateway has no route for, instead of retrying a 503', { timeout: 60_000 }, async () => {
    const work = makeTempDirectory('switchyard-gemini-work-');
    try {
      const started = Date.now();
      const run = await gemini('sim/no-such-model', 'hi', work.path);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain("Model 'sim/no-such-model' is not in this gateway's catalog");
      // Gemini CLI retries 5xx ten times with backoff (minutes); a final answer ends it in seconds.
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      work.remove();
    }
  });

  it('settled every request of the runs above: charged, nothing left reserved', async () => {
    const money = await readAccountMoney(gateway);
    expect(money.reserved).toBe(0n);
    expect(money.usage).toBeGreaterThan(0n);
  });
});
