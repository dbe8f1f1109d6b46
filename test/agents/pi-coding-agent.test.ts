import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { agentCliAvailable, agentCliPath, makeTempDirectory, runCli, wireModels } from './agent-cli.js';

/**
 * The real pi coding agent (`@mariozechner/pi-coding-agent`), offline, in print mode, with its
 * default settings: the gateway is one custom provider per API pi speaks (its `models.json` holds
 * only the base URL, the key's variable and the model ids), on a model of every provider wire.
 */
const modes = {
  'openai-completions': (url: string) => `${url}/v1`,
  'openai-responses': (url: string) => `${url}/v1`,
  'anthropic-messages': (url: string) => url,
} as const;

describe.runIf(agentCliAvailable('pi'))('pi coding agent through the gateway', () => {
  let gateway: SimulatedGateway;
  let home: ReturnType<typeof makeTempDirectory>;

  beforeAll(async () => {
    gateway = await startSimulatedGateway({ credits: 1000 });
    home = makeTempDirectory('switchyard-pi-');
    mkdirSync(join(home.path, '.pi', 'agent'), { recursive: true });
    const providers = Object.fromEntries(
      Object.entries(modes).map(([api, baseUrl]) => [
        `switchyard-${api}`,
        { baseUrl: baseUrl(gateway.url), api, apiKey: 'SWITCHYARD_API_KEY', models: wireModels.map(({ model }) => ({ id: model })) },
      ]),
    );
    writeFileSync(join(home.path, '.pi', 'agent', 'models.json'), JSON.stringify({ providers }, null, 2));
  });

  afterAll(async () => {
    home?.remove();
    await gateway?.close();
  });

  function pi(api: keyof typeof modes, model: string, prompt: string, cwd: string) {
    // --offline: no update check or other start-up traffic (the suite reaches only loopback).
    return runCli(agentCliPath('pi'), ['--offline', '--print', '--provider', `switchyard-${api}`, '--model', model, prompt], {
      cwd,
      env: { HOME: home.path, SWITCHYARD_API_KEY: gateway.key },
    });
  }

  for (const api of Object.keys(modes) as Array<keyof typeof modes>) {
    for (const { wire, model, upstream } of wireModels) {
      it(`prints the answer of a one-shot prompt in its ${api} mode on a ${wire}-wire model`, { timeout: 120_000 }, async () => {
        const work = makeTempDirectory('switchyard-pi-work-');
        try {
          const run = await pi(api, model, 'Say hello [[sim-text:Hello from the gateway]]', work.path);
          expect(run.code, run.stderr).toBe(0);
          expect(run.stdout.trim()).toBe(`Simulated reply from ${upstream}: Hello from the gateway`);
        } finally {
          work.remove();
        }
      });

      it(`runs the bash command the model asks for and answers with its output in its ${api} mode on a ${wire}-wire model`, { timeout: 120_000 }, async () => {
        const work = makeTempDirectory('switchyard-pi-work-');
        try {
          // The shell computes 6*7, so "marker-42" in the answer can only come from the command's real output.
          const call = JSON.stringify({ command: 'echo pi-was-here > made.txt && echo marker-$((6*7))' });
          const run = await pi(api, model, `Create made.txt [[sim-call:bash ${call}]]`, work.path);
          expect(run.code, run.stderr).toBe(0);
          expect(existsSync(join(work.path, 'made.txt'))).toBe(true);
          expect(readFileSync(join(work.path, 'made.txt'), 'utf8')).toBe('pi-was-here\n');
          expect(run.stdout.trim()).toMatch(/^Tool result: /);
          expect(run.stdout).toContain('marker-42');
          expect(run.stdout).not.toContain('$((6*7))');
        } finally {
          work.remove();
        }
      });
    }
  }

  it('settled every request of the runs above: charged, nothing left reserved', async () => {
    const money = await readAccountMoney(gateway);
    expect(money.reserved).toBe(0n);
    expect(money.usage).toBeGreaterThan(0n);
  });
});
