import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { startFakeSearchBackend, type FakeSearchBackend } from '../helpers/start-fake-search-backend.js';
import { agentCliAvailable, agentCliPath, makeTempDirectory, runCli, wireModels } from './agent-cli.js';

// The real Codex CLI, offline, with the gateway as a custom Responses-API model provider and no
// other configuration: base URL, key (SWITCHYARD_API_KEY) and model (--model).
describe.runIf(agentCliAvailable('codex'))('Codex CLI through the gateway', () => {
  let gateway: SimulatedGateway;
  let searxng: FakeSearchBackend;
  let home: ReturnType<typeof makeTempDirectory>;

  beforeAll(async () => {
    // The gateway runs web search itself (hosted_tools) against a local SearXNG: offline.
    searxng = await startFakeSearchBackend('searxng');
    gateway = await startSimulatedGateway({
      credits: 1000,
      configure: (config) => {
        config.hostedTools = {
          webSearch: { backend: 'searxng', baseUrl: searxng.baseUrl, apiKey: '', pricePerSearch: 4_000_000n, maxResults: 5, maxUses: 3, timeoutMs: 2000 },
        };
      },
    });
    home = makeTempDirectory('switchyard-codex-');
    mkdirSync(join(home.path, 'codex'));
    // Codex's defaults otherwise: its hosted web_search tool is offered on every request, and
    // none of the simulated models has a search: the gateway runs it (contract §4a).
    writeFileSync(
      join(home.path, 'codex', 'config.toml'),
      [
        'model_provider = "switchyard"',
        '[model_providers.switchyard]',
        'name = "Switchyard"',
        `base_url = "${gateway.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "SWITCHYARD_API_KEY"',
        '',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    home?.remove();
    await gateway?.close();
    await searxng?.close();
  });

  function codex(model: string, prompt: string, cwd: string) {
    return runCli(agentCliPath('codex'), ['exec', '--skip-git-repo-check', '--model', model, '--sandbox', 'workspace-write', prompt], {
      cwd,
      env: { HOME: home.path, CODEX_HOME: join(home.path, 'codex'), SWITCHYARD_API_KEY: gateway.key },
    });
  }

  for (const { wire, model, upstream } of wireModels) {
    it(`prints the answer of a one-shot prompt on a ${wire}-wire model`, { timeout: 120_000 }, async () => {
      const work = makeTempDirectory('switchyard-codex-work-');
      try {
        const run = await codex(model, 'Say hello [[sim-text:Hello from the gateway]]', work.path);
        expect(run.stderr + run.stdout).not.toMatch(/error/i);
        expect(run.code).toBe(0);
        // The final message alone is printed on stdout.
        expect(run.stdout.trim()).toBe(`Simulated reply from ${upstream}: Hello from the gateway`);
      } finally {
        work.remove();
      }
    });

    it(`runs the shell command the model asks for and answers with its output on a ${wire}-wire model`, { timeout: 120_000 }, async () => {
      const work = makeTempDirectory('switchyard-codex-work-');
      try {
        // The shell computes 6*7, so "marker-42" in the answer can only come from the command's real output.
        const call = JSON.stringify({ cmd: 'echo codex-was-here > made.txt && echo marker-$((6*7))' });
        const run = await codex(model, `Create made.txt [[sim-call:exec_command ${call}]]`, work.path);
        expect(run.code).toBe(0);
        expect(existsSync(join(work.path, 'made.txt'))).toBe(true);
        expect(readFileSync(join(work.path, 'made.txt'), 'utf8')).toBe('codex-was-here\n');
        expect(run.stdout.trim()).toMatch(/^Tool result: /);
        expect(run.stdout).toContain('marker-42');
        expect(run.stdout).not.toContain('$((6*7))');
      } finally {
        work.remove();
      }
    });
  }

  for (const { wire, model } of wireModels) {
    it(`searches through the gateway with its default web_search tool and answers from the results on a ${wire}-wire model`, { timeout: 120_000 }, async () => {
      const work = makeTempDirectory('switchyard-codex-work-');
      const before = searxng.searches.length;
      try {
        const run = await codex(model, 'What is Switchyard? [[sim-call:web_search {"query":"switchyard gateway"}]]', work.path);
        expect(run.code).toBe(0);
        expect(searxng.searches.length).toBe(before + 1);
        expect(searxng.searches.at(-1)!.url.searchParams.get('q')).toBe('switchyard gateway');
        // The model's answer is built from the search results the gateway fed back.
        expect(run.stdout).toContain('https://example.org/switchyard');
      } finally {
        work.remove();
      }
    });
  }

  it('settled every request of the runs above: charged, nothing left reserved', async () => {
    const money = await readAccountMoney(gateway);
    expect(money.reserved).toBe(0n);
    expect(money.usage).toBeGreaterThan(0n);
  });

  it('was offered Codex’s default web search on every request, and the gateway ran it instead of leaving it out', async () => {
    await gateway.test.context.requestLog.flush();
    const response = await gateway.test.app.inject({ method: 'GET', url: '/v1/requests?limit=100', headers: { authorization: `Bearer ${gateway.key}` } });
    const rows = (response.json() as { data: Array<{ status: string; omitted: string[] }> }).data;
    expect(rows.length).toBeGreaterThanOrEqual(wireModels.length * 3);
    for (const row of rows) {
      expect(row.status).toBe('completed');
      expect(row.omitted).not.toContain('tools[type=web_search]');
    }
  });

  // Runs after the request-log check above: Codex's socket session leaves one row with status
  // refused (a request refused before any provider was called), which that check does not expect.
  it('talks to the gateway over the Responses WebSocket when its provider config allows it', { timeout: 120_000 }, async () => {
    const work = makeTempDirectory('switchyard-codex-work-');
    let upgrades = 0;
    let posts = 0;
    const countUpgrade = () => void (upgrades += 1);
    const countPost = (request: { method?: string; url?: string }) => void (posts += request.method === 'POST' && request.url?.startsWith('/v1/responses') ? 1 : 0);
    gateway.test.app.server.on('upgrade', countUpgrade);
    gateway.test.app.server.on('request', countPost);
    try {
      const run = await runCli(
        agentCliPath('codex'),
        ['exec', '--skip-git-repo-check', '-c', 'model_providers.switchyard.supports_websockets=true', '--model', 'sim/anthropic-model', 'Say hello [[sim-text:Hello over a socket]]'],
        { cwd: work.path, env: { HOME: home.path, CODEX_HOME: join(home.path, 'codex'), SWITCHYARD_API_KEY: gateway.key } },
      );
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe('Simulated reply from claude-sim: Hello over a socket');
      // Served over the socket: no fallback to POST /v1/responses.
      expect(upgrades).toBeGreaterThan(0);
      expect(posts).toBe(0);
    } finally {
      gateway.test.app.server.off('upgrade', countUpgrade);
      gateway.test.app.server.off('request', countPost);
      work.remove();
    }
  });
});
