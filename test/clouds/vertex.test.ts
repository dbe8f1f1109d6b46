import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, Type, type Content } from '@google/genai';
import OpenAI from 'openai';
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { cloudEndpoint, cloudModel, weatherTool } from './cloud-catalog.js';

/**
 * Google Vertex AI as a provider kind (`platform: {kind: vertex}` on `api: gemini` and
 * `api: anthropic`), through the simulator's Vertex routes, which accept only OAuth tokens its
 * own token endpoint issued for the service account's signed assertion (or, for Gemini, a
 * Vertex API key). The gateway signs with google-auth-library, pointed at that endpoint by the
 * key file's `token_uri`.
 */
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

const serviceAccount = (simulatorUrl: string) =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'sim-project',
    private_key_id: 'key-1',
    private_key: privatePem,
    client_email: 'gateway@sim-project.iam.gserviceaccount.com',
    token_uri: `${simulatorUrl}/google/token`,
  });

const model = (id: string, provider: string, upstream: string) => cloudModel(id, 'Vertex', cloudEndpoint(provider, upstream));
const catalogYaml = (url: string) => `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: vertex-gemini, name: Vertex Gemini, api: gemini, platform: {kind: vertex, project: sim-project, location: global, service_account: '${serviceAccount(url)}'}, base_url: "${url}/vertex"}
  - {id: vertex-claude, name: Vertex Claude, api: anthropic, platform: {kind: vertex, project: sim-project, location: us-east5, service_account: '${serviceAccount(url)}'}, base_url: "${url}/vertex"}
  - {id: vertex-express, name: Vertex express, api: gemini, platform: {kind: vertex, project: sim-project, location: global}, base_url: "${url}/vertex", api_key: sim-key}
models:
${model('vertex/gemini', 'vertex-gemini', 'gemini-2.5-flash')}${model('vertex/claude', 'vertex-claude', 'claude-sonnet-4-5@20250929')}${model('vertex/gemini-key', 'vertex-express', 'gemini-2.5-flash-lite')}`;

describe('Vertex AI through the official SDKs', () => {
  let gateway: SimulatedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let genai: GoogleGenAI;
  beforeAll(async () => {
    gateway = await startSimulatedGateway({ simulator: { apiKey: 'sim-key', googleServiceAccountPublicKey: publicPem }, catalogYaml });
    openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    genai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } });
  });
  afterAll(async () => gateway?.close());

  describe.each([
    { id: 'vertex/gemini', upstream: 'gemini-2.5-flash', protocol: 'gemini' as const, path: '/vertex/v1/projects/sim-project/locations/global/publishers/google/models/gemini-2.5-flash:' },
    { id: 'vertex/claude', upstream: 'claude-sonnet-4-5@20250929', protocol: 'anthropic' as const, path: '/vertex/v1/projects/sim-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5%4020250929:' },
    { id: 'vertex/gemini-key', upstream: 'gemini-2.5-flash-lite', protocol: 'gemini' as const, path: '/vertex/v1/projects/sim-project/locations/global/publishers/google/models/gemini-2.5-flash-lite:' },
  ])('$id', ({ id, upstream, protocol, path }) => {
    const reply = new RegExp(`^Simulated reply from ${upstream.replace(/[.@]/g, '\\$&')}: `);

    it('Chat Completions: text and tools, streaming and not, on the Vertex URL', async () => {
      const completion = await openai.chat.completions.create({ model: id, messages: [{ role: 'user', content: 'hello vertex' }] });
      expect(completion.choices[0].message.content).toMatch(reply);
      const received = gateway.simulator.lastRequest(protocol)!;
      expect(received.path.startsWith(path)).toBe(true);
      if (id === 'vertex/gemini-key') expect(received.headers['x-goog-api-key']).toBe('sim-key');
      else expect(received.headers.authorization).toMatch(/^Bearer ya29\.sim\./);
      let text = '';
      for await (const chunk of await openai.chat.completions.create({ model: id, messages: [{ role: 'user', content: 'hello vertex' }], stream: true })) {
        text += chunk.choices[0]?.delta?.content ?? '';
      }
      expect(text).toMatch(reply);
      const request = { model: id, messages: [{ role: 'user' as const, content: 'What is the weather?' }], tools: [{ type: 'function' as const, function: weatherTool }] };
      const streamed = await openai.chat.completions.stream(request).finalChatCompletion();
      expect(streamed.choices[0].finish_reason).toBe('tool_calls');
      expect((streamed.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.name).toBe('get_weather');
    });

    it('Messages: text and tools, streaming and not', async () => {
      const message = await anthropic.messages.create({ model: id, max_tokens: 200, messages: [{ role: 'user', content: 'hello vertex' }] });
      expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(reply) });
      if (protocol === 'anthropic') {
        // Claude on Vertex: the model in the URL, not the body; Vertex's anthropic_version in the body.
        const received = gateway.simulator.lastRequest('anthropic')!;
        expect(received.path).toBe(`${path}rawPredict`);
        expect(received.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16' });
        expect(received.body).not.toHaveProperty('model');
      }
      const tools = [{ name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters as Anthropic.Tool.InputSchema }];
      const final = await anthropic.messages.stream({ model: id, max_tokens: 200, messages: [{ role: 'user', content: 'What is the weather?' }], tools }).finalMessage();
      expect(final.stop_reason).toBe('tool_use');
      expect(final.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: { city: 'sample' } });
      if (protocol === 'anthropic') expect(gateway.simulator.lastRequest('anthropic')!.path).toBe(`${path}streamRawPredict`);
    });

    it('Responses: text and tools, streaming and not', async () => {
      const response = await openai.responses.create({ model: id, input: 'hello vertex' });
      expect(response.output_text).toMatch(reply);
      const tools = [{ type: 'function' as const, name: weatherTool.name, description: weatherTool.description, parameters: weatherTool.parameters, strict: false }];
      const streamed = await openai.responses.stream({ model: id, input: 'What is the weather?', tools }).finalResponse();
      expect(streamed.output.find((item) => item.type === 'function_call')).toMatchObject({ name: 'get_weather' });
    });

    it('generateContent (Gemini style): text and a tool round trip, streaming and not', async () => {
      const response = await genai.models.generateContent({ model: id, contents: 'hello vertex' });
      expect(response.text).toMatch(reply);
      let streamedText = '';
      for await (const chunk of await genai.models.generateContentStream({ model: id, contents: 'hello vertex' })) streamedText += chunk.text ?? '';
      expect(streamedText).toMatch(reply);
      expect(gateway.simulator.lastRequest(protocol)!.path).toBe(`${path}${protocol === 'anthropic' ? 'streamRawPredict' : 'streamGenerateContent?alt=sse'}`);
      const tools = [{ functionDeclarations: [{ name: weatherTool.name, description: weatherTool.description, parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] } }] }];
      const contents: Content[] = [{ role: 'user', parts: [{ text: 'What is the weather?' }] }];
      const first = await genai.models.generateContent({ model: id, contents, config: { tools } });
      expect(first.functionCalls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'sample' } });
      contents.push(first.candidates![0].content!, { role: 'user', parts: [{ functionResponse: { id: first.functionCalls![0].id, name: 'get_weather', response: { output: 'windy-17' } } }] });
      let text = '';
      for await (const chunk of await genai.models.generateContentStream({ model: id, contents, config: { tools } })) text += chunk.text ?? '';
      expect(text).toMatch(reply);
      expect(JSON.stringify(gateway.simulator.lastRequest(protocol)!.body)).toContain('windy-17');
    });
  });
});

describe('Vertex AI Claude token counting', () => {
  it('answers count_tokens with the local estimate, without calling Vertex', async () => {
    const gateway = await startSimulatedGateway({ simulator: { apiKey: 'sim-key', googleServiceAccountPublicKey: publicPem }, catalogYaml });
    try {
      const response = await fetch(`${gateway.url}/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'x-api-key': gateway.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'vertex/claude', messages: [{ role: 'user', content: 'count these words please' }] }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-switchyard-token-count')).toBe('estimated');
      expect(gateway.simulator.stats().requests).toBe(0);
    } finally {
      await gateway.close();
    }
  });
});

describe('Vertex AI service-account tokens', () => {
  const lifetimeSeconds = 2;
  let gateway: SimulatedGateway;
  beforeAll(async () => {
    gateway = await startSimulatedGateway({
      simulator: { apiKey: 'sim-key', googleServiceAccountPublicKey: publicPem, googleTokenLifetimeSeconds: lifetimeSeconds },
      catalogYaml,
    });
  });
  afterAll(async () => gateway?.close());

  const wave = async (size: number) => {
    const statuses = await Promise.all(
      Array.from({ length: size }, async () => {
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'vertex/gemini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    return statuses;
  };
  const issued = () => gateway.simulator.stats().googleTokensIssued;

  it('fetches one token for concurrent requests, refreshes once when it expires or is about to, and no request fails', async () => {
    expect(await wave(20)).toEqual(Array(20).fill(200));
    expect(issued()).toBe(1);
    // Past the token's expiry: the simulator would refuse it, so every request needs the new one.
    await new Promise((resolve) => setTimeout(resolve, lifetimeSeconds * 1000 + 100));
    expect(await wave(20)).toEqual(Array(20).fill(200));
    expect(issued()).toBe(2);
    // Inside the last quarter of its life: renewed before it can expire in flight.
    await new Promise((resolve) => setTimeout(resolve, lifetimeSeconds * 800));
    expect(await wave(20)).toEqual(Array(20).fill(200));
    expect(issued()).toBe(3);
  });

  it('under steady concurrent load, renews the token once while requests are in flight, and none fails', async () => {
    // A longer life than above: the second token is renewed 4.5 s after it is issued, far beyond
    // the three answers per client this waits for, however busy the machine.
    const fresh = await startSimulatedGateway({
      simulator: { apiKey: 'sim-key', googleServiceAccountPublicKey: publicPem, googleTokenLifetimeSeconds: 6 },
      catalogYaml,
    });
    try {
      const tokensIssued = () => fresh.simulator.stats().googleTokensIssued ?? 0;
      const statuses: number[] = [];
      const tokens = new Set<string>();
      // Requests sent before the second token was issued and answered after it: the one that
      // renewed it and every other one in flight meanwhile (those that found it stale wait for
      // the same renewal). Counted over the whole renewal rather than sampled at one instant.
      let acrossRenewal = 0;
      // Twelve clients, each sending one request after another (a short pause between), until the
      // token has been renewed and each has had three more answers.
      const client = async () => {
        let afterRenewal = 0;
        while (afterRenewal < 3) {
          const issuedAtSend = tokensIssued();
          const response = await fetch(`${fresh.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${fresh.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'vertex/gemini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
          });
          await response.arrayBuffer();
          statuses.push(response.status);
          tokens.add(String(fresh.simulator.lastRequest('gemini')?.headers.authorization));
          if (tokensIssued() >= 2) {
            if (issuedAtSend < 2) acrossRenewal += 1;
            afterRenewal += 1;
          }
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      await Promise.all(Array.from({ length: 12 }, client));
      expect(statuses.length).toBeGreaterThan(12 * 3);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      // One token, then one renewal shared by every request that found it stale.
      expect(tokensIssued()).toBe(2);
      expect(tokens.size).toBe(2);
      // The renewal happened with other requests on their way: more than the one that renewed.
      expect(acrossRenewal).toBeGreaterThan(1);
    } finally {
      await fresh.close();
    }
  });

  it('refuses a forged token as Vertex would', async () => {
    const response = await fetch(`${gateway.simulator.url}/vertex/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { authorization: `Bearer ya29.sim.${Date.now() + 60_000}.forged`, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
  });
});
