import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

// An operator's minimal config (issue 46): a text endpoint that lists no `supported_parameters`
// takes its protocol's sampling and length parameters, so the common `max_tokens` and
// `temperature` work on every style; what stays unlisted (tools here) is refused with the config
// field that would allow it.
const minimalCatalog = (simulatorUrl: string) => `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: local-openai, name: Local OpenAI-compatible, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key}
  - {id: local-anthropic, name: Local Anthropic, api: anthropic, base_url: "${simulatorUrl}/anthropic", api_key: sim-key}
  - {id: local-gemini, name: Local Gemini, api: gemini, base_url: "${simulatorUrl}/gemini/v1beta", api_key: sim-key}
models:
${['openai', 'anthropic', 'gemini']
  .map(
    (protocol) => `  - id: local/${protocol}
    name: "Local ${protocol}"
    context_length: 32000
    modalities: {input: [text], output: [text]}
    endpoints:
      - {provider: local-${protocol}, model: ${protocol}-model, pricing: {prompt: 1, completion: 2}}
`,
  )
  .join('')}`;

const styles: Record<string, (model: string) => [string, object]> = {
  chat: (model: string) => ['/v1/chat/completions', { model, max_tokens: 20, temperature: 0.2, top_p: 0.9, stop: ['END'], messages: [{ role: 'user', content: 'hi' }] }],
  responses: (model: string) => ['/v1/responses', { model, max_output_tokens: 20, temperature: 0.2, top_p: 0.9, input: 'hi' }],
  messages: (model: string) => ['/v1/messages', { model, max_tokens: 20, temperature: 0.2, top_p: 0.9, stop_sequences: ['END'], messages: [{ role: 'user', content: 'hi' }] }],
  gemini: (model: string) => [
    `/v1beta/models/${model}:generateContent`,
    { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 20, temperature: 0.2, topP: 0.9, stopSequences: ['END'] } },
  ],
};

describe('an endpoint without supported_parameters', () => {
  let gateway: SimulatedGateway;
  beforeAll(async () => {
    gateway = await startSimulatedGateway({ catalogYaml: minimalCatalog });
  });
  afterAll(() => gateway.close());

  for (const protocol of ['openai', 'anthropic', 'gemini']) {
    for (const [style, build] of Object.entries(styles)) {
      it(`serves max tokens, temperature, top_p and stop through the ${style} style on a ${protocol} provider`, async () => {
        const [path, body] = build(`local/${protocol}`);
        const response = await sendJson(gateway, gateway.key, 'POST', path, body);
        expect(response.status, await response.clone().text()).toBe(200);
      });
    }
  }

  it('takes top_k where the protocol has it, and says which config field allows what it lacks', async () => {
    const topK = (model: string) => sendJson(gateway, gateway.key, 'POST', '/v1/messages', { model, max_tokens: 20, top_k: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect((await topK('local/anthropic')).status).toBe(200);
    const refused = await topK('local/openai');
    expect(refused.status).toBe(400);
    const { error } = (await refused.json()) as { error: { message: string; param?: string } };
    expect(error.message).toContain("'top_k' is not supported by model 'local/openai'");
    expect(error.message).toContain("adding 'top_k' to supported_parameters");
  });

  it('assumes no model capability: tools are refused, naming supported_parameters', async () => {
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', {
      model: 'local/openai',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string } };
    expect(error.message).toMatch(/'tools' is not supported by model 'local\/openai' \(an operator allows it by adding 'tools' to supported_parameters/);
  });
});
