import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { agentCliAvailable, agentCliPath, makeTempDirectory, runCli, wireModels } from './agent-cli.js';

/**
 * The real Qwen Code CLI (`qwen`), offline, headless, with its default settings: only the base URL,
 * key and model of its `openai` and `anthropic` auth types, given as the environment variables it
 * reads. Its Anthropic mode sends `thinking: {type: "enabled", budget_tokens: 32000}` on every
 * request; no simulated model reasons, so each is served without it (contract §4).
 */
describe.runIf(agentCliAvailable('qwen'))('Qwen Code CLI through the gateway', () => {
  let gateway: SimulatedGateway;
  let home: ReturnType<typeof makeTempDirectory>;

  beforeAll(async () => {
    gateway = await startSimulatedGateway({ credits: 1000 });
    home = makeTempDirectory('switchyard-qwen-');
  });

  afterAll(async () => {
    home?.remove();
    await gateway?.close();
  });

  const authTypes = {
    openai: (model: string) => ({ OPENAI_API_KEY: gateway.key, OPENAI_BASE_URL: `${gateway.url}/v1`, OPENAI_MODEL: model }),
    anthropic: (model: string) => ({ ANTHROPIC_API_KEY: gateway.key, ANTHROPIC_BASE_URL: gateway.url, ANTHROPIC_MODEL: model }),
  } as const;

  function qwen(authType: keyof typeof authTypes, model: string, args: string[], cwd: string) {
    return runCli(agentCliPath('qwen'), ['--auth-type', authType, ...args], { cwd, env: { HOME: home.path, ...authTypes[authType](model) } });
  }

  /** The request log rows written since `since` (ids are time-ordered), oldest first. */
  async function rowsSince(since: string | undefined): Promise<Array<{ id: string; status: string; omitted: string[] }>> {
    await gateway.test.context.requestLog.flush();
    const response = await gateway.test.app.inject({ method: 'GET', url: '/v1/requests?limit=100', headers: { authorization: `Bearer ${gateway.key}` } });
    const rows = (response.json() as { data: Array<{ id: string; status: string; omitted: string[] }> }).data;
    return rows.filter((row) => since === undefined || row.id > since).reverse();
  }

  async function lastRowId(): Promise<string | undefined> {
    return (await rowsSince(undefined)).at(-1)?.id;
  }

  for (const authType of ['openai', 'anthropic'] as const) {
    for (const { wire, model, upstream } of wireModels) {
      it(`prints the answer of a one-shot prompt with the ${authType} auth type on a ${wire}-wire model`, { timeout: 120_000 }, async () => {
        const work = makeTempDirectory('switchyard-qwen-work-');
        try {
          const since = await lastRowId();
          const run = await qwen(authType, model, ['Say hello [[sim-text:Hello from the gateway]]'], work.path);
          expect(run.code, run.stderr).toBe(0);
          expect(run.stdout.trim()).toBe(`Simulated reply from ${upstream}: Hello from the gateway`);
          const rows = await rowsSince(since);
          expect(rows.length).toBeGreaterThan(0);
          for (const row of rows) {
            expect(row.status).toBe('completed');
            // Its Anthropic mode asks every model to think; none of these reasons.
            if (authType === 'anthropic') expect(row.omitted).toContain('thinking');
          }
        } finally {
          work.remove();
        }
      });

      it(`runs the shell command the model asks for and answers with its output, with the ${authType} auth type on a ${wire}-wire model`, { timeout: 120_000 }, async () => {
        const work = makeTempDirectory('switchyard-qwen-work-');
        try {
          // The shell computes 6*7, so "marker-42" in the file can only come from a real run of the command.
          const call = JSON.stringify({ command: 'echo qwen-was-here marker-$((6*7)) > made.txt && cat made.txt' });
          // Tools run unattended only when approved up front: headless Qwen Code has nobody to ask.
          const run = await qwen(authType, model, ['--approval-mode', 'yolo', `Create made.txt [[sim-call:run_shell_command ${call}]]`], work.path);
          expect(run.code, run.stderr).toBe(0);
          expect(existsSync(join(work.path, 'made.txt'))).toBe(true);
          expect(readFileSync(join(work.path, 'made.txt'), 'utf8')).toBe('qwen-was-here marker-42\n');
          // The answer is the model's reply to the tool's result, which went back through the gateway.
          // (Qwen Code's result repeats the command and its exit code; its captured output is
          // sometimes empty on a loaded machine, so the file holds the proof of the run.)
          expect(run.stdout.trim()).toMatch(/^Tool result: /);
          expect(run.stdout).toMatch(/Exit Code: 0/);
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
