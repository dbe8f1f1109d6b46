import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logProviderSummary } from '../../src/cli/log-provider-summary.js';
import { loadConfig } from '../../src/config/load-config.js';
import { readKeyVariables } from '../../src/config/read-key-variables.js';
import { clientErrorType } from '../../src/errors/client-error-type.js';
import { errorCatalog, errorCodes } from '../../src/errors/error-codes.js';
import { logOnlyErrorCodes } from '../../src/errors/request-log-codes.js';
import { sendJson, simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

interface LogLine {
  level: number;
  msg: string;
  err?: { stack?: string };
  [field: string]: unknown;
}

function captureLogger(lines: LogLine[]) {
  return pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
}

const missingProviderYaml = (simulatorUrl: string) =>
  simulatedCatalogYaml(simulatorUrl).replace(
    'providers:\n',
    'providers:\n  - {id: sim-missing, name: Missing, api: openai, base_url: "http://127.0.0.1:9/v1", api_key: "${SIM_MISSING_API_KEY}"}\n',
  ) +
  `  - id: sim/unconfigured
    name: "Sim: unconfigured"
    context_length: 32000
    modalities: {input: [text], output: [text]}
    endpoints:
      - provider: sim-missing
        model: gpt-missing
        pricing: {prompt: 1, completion: 2}
        supported_parameters: [max_tokens]
`;

describe('error messages say what to do', () => {
  let gateway: SimulatedGateway;
  const lines: LogLine[] = [];
  beforeAll(async () => {
    let yaml = '';
    gateway = await startSimulatedGateway({
      logger: captureLogger(lines),
      catalogYaml: (url) => (yaml = missingProviderYaml(url)),
      configure: (config) => {
        const variables = readKeyVariables(yaml);
        for (const provider of config.providers) provider.apiKeyVariable = variables.get(provider.id);
      },
    });
  });
  afterAll(async () => gateway?.close());

  const chat = (body: Record<string, unknown>, key = gateway.key) =>
    sendJson(gateway, key, 'POST', '/v1/chat/completions', { messages: [{ role: 'user', content: 'hello' }], ...body });

  it('suggests the closest model ids for a misspelt model, keeps 503 and tells SDKs not to retry', async () => {
    lines.length = 0;
    const response = await chat({ model: 'sim/opnai-modle' });
    expect(response.status).toBe(503);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const body = (await response.json()) as { error: { code: string; message: string; type: string; metadata: { suggestions: string[] } } };
    expect(body.error.code).toBe('no_available_provider');
    expect(body.error.metadata.suggestions[0]).toBe('sim/openai-model');
    expect(body.error.message).toContain("did you mean 'sim/openai-model'");
    expect(body.error.type).toBe('invalid_request_error');
    // Logged as an expected refusal: not at error level, no stack, not the client's string.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(lines.filter((line) => line.level >= 30 && JSON.stringify(line).includes('opnai-modle'))).toEqual([]);
  });

  it('answers a misspelt model on /messages with a type the Anthropic SDK does not retry', async () => {
    const client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 2 });
    const started = Date.now();
    const error = await client.messages.create({ model: 'sim/anthropic-modl', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(503);
    expect(((error as InstanceType<typeof Anthropic.APIError>).error as { error: { type: string } }).error.type).toBe('invalid_request_error');
    // The SDK's retries wait at least half a second each: none happened.
    expect(Date.now() - started).toBeLessThan(400);
  });

  it('is not retried by the OpenAI SDK either', async () => {
    const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 2 });
    const started = Date.now();
    const error = await client.chat.completions.create({ model: 'sim/opnai-model', messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(400);
  });

  it('names the missing provider key variable to the operator, not to the client', async () => {
    lines.length = 0;
    const response = await chat({ model: 'sim/unconfigured' });
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain('no provider for it is configured');
    expect(body.error.message).not.toContain('SIM_MISSING_API_KEY');
    const warning = lines.find((line) => line.level === 40 && line.msg.includes('SIM_MISSING_API_KEY'));
    expect(warning).toBeDefined();
  });

  it('summarises enabled and disabled providers at start-up with the variable to set', () => {
    const summary: LogLine[] = [];
    logProviderSummary(captureLogger(summary), gateway.test.context.config);
    expect(summary[0].msg).toContain('providers: 3 enabled');
    expect(summary.some((line) => line.level === 40 && line.msg.includes('set SIM_MISSING_API_KEY'))).toBe(true);
  });

  it('states the amounts in a 402', async () => {
    const poor = await gateway.test.createAccount({ credits: 0.000001 });
    const response = await chat({ model: 'sim/openai-model', max_tokens: 900 }, poor.key);
    expect(response.status).toBe(402);
    const body = (await response.json()) as { error: { message: string; metadata: { requested: number; available: number } } };
    expect(body.error.metadata.available).toBe(0.000001);
    expect(body.error.metadata.requested).toBeGreaterThan(0.000001);
    expect(body.error.message).toContain('0.000001 USD is available');
    expect(body.error.message).toContain('Add credits');
  });

  it('does not tell a key that has spent nothing that its limit is used up', async () => {
    const created = await sendJson(gateway, gateway.key, 'POST', '/v1/keys', { name: 'tiny', limit: 0.000001 });
    const { key } = (await created.json()) as { key: string };
    const response = await chat({ model: 'sim/openai-model', max_tokens: 900 }, key);
    expect(response.status).toBe(402);
    const body = (await response.json()) as { error: { message: string; metadata: { limit_type: string } } };
    expect(body.error.metadata.limit_type).toBe('key_limit');
    expect(body.error.message).not.toMatch(/used up/);
    expect(body.error.message).toContain("Raise the key's limit");
  });

  it('answers max_tokens above the model cap with 400 naming the cap', async () => {
    const response = await chat({ model: 'sim/openai-model', max_tokens: 100_000_000 });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string; param: string } };
    expect(body.error).toMatchObject({ code: 'invalid_request', param: 'max_tokens' });
    expect(body.error.message).toContain('at most 1000');
  });

  it("logs an upstream 401 for the operator and shows the client a 502 without the provider's text", async () => {
    lines.length = 0;
    const direct = await fetch(`${gateway.simulator.url}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-sim', messages: [{ role: 'user', content: 'x [[sim:status=401]]' }] }),
    });
    const providerText = ((await direct.json()) as { error: { message: string } }).error.message;
    const response = await chat({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'x [[sim:status=401]]' }] });
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text).not.toContain(providerText);
    expect(text).toContain('operator has been notified');
    const operatorLine = lines.find((line) => line.level === 50 && line.msg.includes('refused our credentials'));
    expect(operatorLine?.detail).toContain(providerText);
  });
});

describe('the error catalog and the client type tables', () => {
  it('lists in the API reference\'s error table exactly the catalog codes, statuses and conditions', () => {
    const page = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const rows = [...page.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \| (.+) \|$/gm)].map((match) => ({ status: Number(match[1]), code: match[2], when: match[3] }));
    expect(rows.map((row) => row.code).sort()).toEqual(Object.keys(errorCatalog).sort());
    for (const row of rows) {
      expect(errorCodes[row.code as keyof typeof errorCodes]).toBe(row.status);
      expect(errorCatalog[row.code as keyof typeof errorCatalog].when).toBe(row.when);
    }
  });

  it('lists in docs/operations.md the request-log codes beyond the client catalog, exactly', () => {
    const page = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const table = page.slice(page.indexOf('|---|---|', page.indexOf('| `error_code` | when |')));
    const rows = [...table.slice(0, table.indexOf('\n\n')).matchAll(/^\| `([a-z_]+)` \| (.+) \|$/gm)].map((match) => ({ code: match[1], when: match[2] }));
    expect(rows.map((row) => row.code).sort()).toEqual(Object.keys(logOnlyErrorCodes).sort());
    for (const row of rows) expect(logOnlyErrorCodes[row.code as keyof typeof logOnlyErrorCodes]).toBe(row.when);
    // A code of both lists would make a row's meaning ambiguous.
    expect(Object.keys(logOnlyErrorCodes).filter((code) => code in errorCatalog)).toEqual([]);
  });

  it('gives a /messages upstream timeout the same type in a JSON answer and mid-stream', () => {
    expect(clientErrorType('anthropic', 504, 'upstream_timeout')).toBe('timeout_error');
    expect(clientErrorType('anthropic', 503, 'service_unavailable')).toBe('overloaded_error');
    expect(clientErrorType('anthropic', 503, 'no_available_provider')).toBe('invalid_request_error');
    expect(clientErrorType('openai', 502, 'upstream_error')).toBe('server_error');
  });

  it('reads the key variable a provider names, through loadConfig', () => {
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-edge-'));
    const path = join(directory, 'switchyard.yaml');
    writeFileSync(path, missingProviderYaml('http://127.0.0.1:9'));
    const config = loadConfig({ SWITCHYARD_CONFIG: path }, directory);
    expect(config.providers.find((provider) => provider.id === 'sim-missing')).toMatchObject({ enabled: false, apiKeyVariable: 'SIM_MISSING_API_KEY' });
  });
});
