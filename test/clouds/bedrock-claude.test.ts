import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, Type, type Content } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorAwsCredentials, simulatorAwsSessionCredentials } from '@switchyard/simulator';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { cloudEndpoint, cloudModel, weatherTool } from './cloud-catalog.js';

/**
 * Claude on AWS Bedrock as a provider kind (`api: anthropic` with `platform: {kind: bedrock}`),
 * through the simulator's Bedrock runtime routes, which check every request's SigV4 signature
 * against the simulator's test credentials as AWS would (or take its API key as a Bedrock API
 * key). Credentials reach the config only through the environment, as an operator's would.
 */
const env = {
  SIM_AWS_ACCESS_KEY_ID: simulatorAwsCredentials.accessKeyId,
  SIM_AWS_SECRET_ACCESS_KEY: simulatorAwsCredentials.secretAccessKey,
  SIM_AWS_SESSION_ACCESS_KEY_ID: simulatorAwsSessionCredentials.accessKeyId,
  SIM_AWS_SESSION_SECRET_ACCESS_KEY: simulatorAwsSessionCredentials.secretAccessKey,
  SIM_AWS_SESSION_TOKEN: simulatorAwsSessionCredentials.sessionToken,
  SIM_BEDROCK_API_KEY: 'bedrock-api-key-sim',
};
Object.assign(process.env, env);

const endpoint = (provider: string, upstream: string) => cloudEndpoint(provider, upstream, { pricing: '{prompt: 3, completion: 15}' });
const model = (id: string, endpoints: string) => cloudModel(id, 'Bedrock', endpoints, { contextLength: 200000 });
const catalogYaml = (url: string) => `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: bedrock-keys, name: Bedrock, api: anthropic, platform: {kind: bedrock, region: us-east-1, access_key_id: "\${SIM_AWS_ACCESS_KEY_ID}", secret_access_key: "\${SIM_AWS_SECRET_ACCESS_KEY}"}, base_url: "${url}/bedrock"}
  - {id: bedrock-session, name: Bedrock (STS), api: anthropic, platform: {kind: bedrock, region: us-west-2, access_key_id: "\${SIM_AWS_SESSION_ACCESS_KEY_ID}", secret_access_key: "\${SIM_AWS_SESSION_SECRET_ACCESS_KEY}", session_token: "\${SIM_AWS_SESSION_TOKEN}"}, base_url: "${url}/bedrock"}
  - {id: bedrock-api-key, name: Bedrock (API key), api: anthropic, platform: {kind: bedrock, region: us-east-1}, api_key: "\${SIM_BEDROCK_API_KEY}", base_url: "${url}/bedrock"}
models:
${model('bedrock/claude', endpoint('bedrock-keys', 'anthropic.claude-sonnet-4-5-20250929-v1:0'))}${model('bedrock/claude-session', endpoint('bedrock-session', 'us.anthropic.claude-haiku-4-5-20251001-v1:0'))}${model('bedrock/claude-api-key', endpoint('bedrock-api-key', 'global.anthropic.claude-opus-4-5-20251101-v1:0'))}${model(
  'bedrock/failover',
  endpoint('bedrock-keys', 'anthropic.claude-throttled-v1:0') + endpoint('bedrock-session', 'anthropic.claude-backup-v1:0'),
)}${model('bedrock/throttled', endpoint('bedrock-keys', 'anthropic.claude-only-v1:0'))}`;

let gateway: SimulatedGateway;
let openai: OpenAI;
let anthropic: Anthropic;
let genai: GoogleGenAI;
beforeAll(async () => {
  gateway = await startSimulatedGateway({ simulator: { apiKey: 'bedrock-api-key-sim' }, catalogYaml });
  openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } });
});
afterAll(async () => gateway?.close());

describe.each([
  { id: 'bedrock/claude', upstream: 'anthropic.claude-sonnet-4-5-20250929-v1:0', credential: `AWS4-HMAC-SHA256 Credential=${simulatorAwsCredentials.accessKeyId}/`, region: 'us-east-1' },
  { id: 'bedrock/claude-session', upstream: 'us.anthropic.claude-haiku-4-5-20251001-v1:0', credential: `AWS4-HMAC-SHA256 Credential=${simulatorAwsSessionCredentials.accessKeyId}/`, region: 'us-west-2' },
  { id: 'bedrock/claude-api-key', upstream: 'global.anthropic.claude-opus-4-5-20251101-v1:0', credential: 'Bearer bedrock-api-key-sim', region: undefined },
])('$id through the official SDKs', ({ id, upstream, credential, region }) => {
  const reply = new RegExp(`^Simulated reply from ${upstream.replace(/[.:]/g, '\\$&')}: `);
  const path = `/bedrock/model/${encodeURIComponent(upstream)}/`;
  const expectBedrockRequest = (operation: 'invoke' | 'invoke-with-response-stream') => {
    const received = gateway.simulator.lastRequest('anthropic')!;
    expect(received.path).toBe(`${path}${operation}`);
    expect(received.headers.authorization).toMatch(new RegExp(`^${credential.replace(/[.+/]/g, '\\$&')}`));
    if (region) expect(received.headers.authorization).toContain(`/${region}/bedrock/aws4_request`);
    if (id === 'bedrock/claude-session') expect(received.headers['x-amz-security-token']).toBe(simulatorAwsSessionCredentials.sessionToken);
    expect(received.body).toMatchObject({ anthropic_version: 'bedrock-2023-05-31' });
    expect(received.body).not.toHaveProperty('model');
    expect(received.body).not.toHaveProperty('stream');
  };

  it('Chat Completions: text and a tool round trip, streaming and not', async () => {
    const completion = await openai.chat.completions.create({ model: id, messages: [{ role: 'user', content: 'hello bedrock' }] });
    expect(completion.choices[0].message.content).toMatch(reply);
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    expectBedrockRequest('invoke');
    let text = '';
    for await (const chunk of await openai.chat.completions.create({ model: id, messages: [{ role: 'user', content: 'hello bedrock' }], stream: true })) {
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(text).toMatch(reply);
    expectBedrockRequest('invoke-with-response-stream');

    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather?' }];
    const tools = [{ type: 'function' as const, function: weatherTool }];
    const first = await openai.chat.completions.stream({ model: id, messages, tools }).finalChatCompletion();
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const call = first.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function).toMatchObject({ name: 'get_weather', arguments: JSON.stringify({ city: 'sample' }) });
    messages.push({ role: 'assistant', content: first.choices[0].message.content, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: 'sunny-21' });
    const second = await openai.chat.completions.create({ model: id, messages, tools });
    expect(second.choices[0].message.content).toContain('sunny-21');
    // The tool result went to Bedrock as Anthropic's tool_result block.
    expect(JSON.stringify(gateway.simulator.lastRequest('anthropic')!.body)).toContain('"type":"tool_result"');
  });

  it('Responses: text and a tool round trip, streaming and not', async () => {
    const response = await openai.responses.create({ model: id, input: 'hello bedrock' });
    expect(response.output_text).toMatch(reply);
    const tools = [{ type: 'function' as const, name: weatherTool.name, description: weatherTool.description, parameters: weatherTool.parameters, strict: false }];
    const streamed = await openai.responses.stream({ model: id, input: 'What is the weather?', tools }).finalResponse();
    const call = streamed.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'get_weather', arguments: JSON.stringify({ city: 'sample' }) });
    expectBedrockRequest('invoke-with-response-stream');
    const second = await openai.responses.create({
      model: id,
      tools,
      input: [{ role: 'user', content: 'What is the weather?' }, call, { type: 'function_call_output', call_id: call.call_id, output: 'cloudy-14' }],
    });
    expect(second.output_text).toContain('cloudy-14');
  });

  it('Messages: text and a tool round trip, streaming and not', async () => {
    const message = await anthropic.messages.create({ model: id, max_tokens: 200, messages: [{ role: 'user', content: 'hello bedrock' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(reply) });
    expect(message.model).toBe(id);
    expectBedrockRequest('invoke');
    const tools = [{ name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters as Anthropic.Tool.InputSchema }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather?' }];
    const final = await anthropic.messages.stream({ model: id, max_tokens: 200, messages, tools }).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    const use = final.content.find((block) => block.type === 'tool_use')!;
    expect(use).toMatchObject({ name: 'get_weather', input: { city: 'sample' } });
    expectBedrockRequest('invoke-with-response-stream');
    messages.push({ role: 'assistant', content: final.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'rainy-9' }] });
    let text = '';
    for await (const event of anthropic.messages.stream({ model: id, max_tokens: 200, messages, tools })) {
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    }
    expect(text).toContain('rainy-9');
  });

  it('generateContent: text and a tool round trip, streaming and not', async () => {
    const response = await genai.models.generateContent({ model: id, contents: 'hello bedrock' });
    expect(response.text).toMatch(reply);
    let streamedText = '';
    for await (const chunk of await genai.models.generateContentStream({ model: id, contents: 'hello bedrock' })) streamedText += chunk.text ?? '';
    expect(streamedText).toMatch(reply);
    expectBedrockRequest('invoke-with-response-stream');
    const tools = [{ functionDeclarations: [{ name: weatherTool.name, description: weatherTool.description, parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] } }] }];
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'What is the weather?' }] }];
    const first = await genai.models.generateContent({ model: id, contents, config: { tools } });
    expect(first.functionCalls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'sample' } });
    contents.push(first.candidates![0].content!, { role: 'user', parts: [{ functionResponse: { id: first.functionCalls![0].id, name: 'get_weather', response: { output: 'windy-17' } } }] });
    let text = '';
    for await (const chunk of await genai.models.generateContentStream({ model: id, contents, config: { tools } })) text += chunk.text ?? '';
    expect(text).toContain('windy-17');
  });
});

describe('Bedrock Claude: the Messages pass-through', () => {
  const body = {
    model: 'bedrock/claude',
    max_tokens: 300,
    system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
    messages: [{ role: 'user', content: 'hello relay' }],
    metadata: { user_id: 'user-7' },
  };
  const post = (extra: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gateway.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
      body: JSON.stringify({ ...body, ...extra }),
    });

  it('relays the client\'s own body, model and stream moved to the URL, the betas into anthropic_beta', async () => {
    const response = await post({}, { 'anthropic-beta': 'context-management-2025-06-27' });
    expect(response.status).toBe(200);
    const { model: _model, ...rest } = body;
    const received = gateway.simulator.lastRequest('anthropic')!;
    expect(received.path).toBe(`/bedrock/model/${encodeURIComponent('anthropic.claude-sonnet-4-5-20250929-v1:0')}/invoke`);
    expect(received.rawBody).toBe(JSON.stringify({ ...rest, anthropic_version: 'bedrock-2023-05-31', anthropic_beta: ['context-management-2025-06-27'] }));
    expect(received.headers['anthropic-beta']).toBeUndefined();
    const message = (await response.json()) as { id: string; model: string; content: Array<{ text: string }> };
    expect(message.id).toBe(response.headers.get('x-request-id'));
    expect(message.model).toBe('bedrock/claude');
  });

  it('relays the stream event by event, decoded from Bedrock\'s frames', async () => {
    const response = await post({ stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(events).toContain('content_block_delta');
    const { model: _model, ...rest } = body;
    expect(gateway.simulator.lastRequest('anthropic')!.rawBody).toBe(JSON.stringify({ ...rest, anthropic_version: 'bedrock-2023-05-31' }));
    expect(gateway.simulator.lastRequest('anthropic')!.path).toMatch(/\/invoke-with-response-stream$/);
  });
});

describe('Bedrock Claude: failures inside the stream, and token counting', () => {
  it('an exception frame after the first events reaches the client as a stream error', async () => {
    gateway.simulator.reset();
    gateway.simulator.setFault({ match: { protocol: 'anthropic', model: 'anthropic.claude-sonnet-4-5-20250929-v1:0' }, fault: { error_after: 5 }, times: 1 });
    const stream = await openai.chat.completions.create({ model: 'bedrock/claude', messages: [{ role: 'user', content: 'hello bedrock' }], stream: true });
    let text = '';
    const consumed = (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })();
    await expect(consumed).rejects.toThrow(/ServiceUnavailable|serviceUnavailableException|unable to process/i);
    expect(text).not.toBe('');
  });

  it('a frame cut in half before any event is a protocol error the gateway fails over from', async () => {
    gateway.simulator.reset();
    gateway.simulator.setFault({ match: { protocol: 'anthropic', model: 'anthropic.claude-throttled-v1:0' }, fault: { malformed_after: 0 } });
    const final = await anthropic.messages.stream({ model: 'bedrock/failover', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }).finalMessage();
    expect(final.content[0]).toMatchObject({ text: expect.stringMatching(/^Simulated reply from anthropic\.claude-backup-v1:0: /) });
    expect(gateway.simulator.received()).toHaveLength(2);
  });

  it('answers count_tokens with the local estimate, without calling Bedrock', async () => {
    gateway.simulator.reset();
    const response = await fetch(`${gateway.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': gateway.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'bedrock/claude', messages: [{ role: 'user', content: 'count these words please' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-token-count')).toBe('estimated');
    expect(gateway.simulator.stats().requests).toBe(0);
  });
});

describe('Bedrock throttling', () => {
  it('fails over to the next endpoint when Bedrock throttles', async () => {
    gateway.simulator.reset();
    gateway.simulator.setFault({ match: { protocol: 'anthropic', model: 'anthropic.claude-throttled-v1:0' }, fault: { status: 429 } });
    const completion = await openai.chat.completions.create({ model: 'bedrock/failover', messages: [{ role: 'user', content: 'hello' }] });
    expect(completion.choices[0].message.content).toMatch(/^Simulated reply from anthropic\.claude-backup-v1:0: /);
    expect(gateway.simulator.received().map((request) => request.path)).toEqual([
      `/bedrock/model/${encodeURIComponent('anthropic.claude-throttled-v1:0')}/invoke`,
      `/bedrock/model/${encodeURIComponent('anthropic.claude-backup-v1:0')}/invoke`,
    ]);
  });

  it('fails over when the throttling comes as the stream\'s first frame', async () => {
    gateway.simulator.reset();
    gateway.simulator.setFault({ match: { protocol: 'anthropic', model: 'anthropic.claude-throttled-v1:0' }, fault: { error_after: 0 } });
    const final = await anthropic.messages.stream({ model: 'bedrock/failover', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }).finalMessage();
    expect(final.content[0]).toMatchObject({ text: expect.stringMatching(/^Simulated reply from anthropic\.claude-backup-v1:0: /) });
    expect(gateway.simulator.received()).toHaveLength(2);
  });

  it('answers 429 with the Retry-After Bedrock gave when no endpoint is left', async () => {
    gateway.simulator.reset();
    gateway.simulator.setFault({ match: { protocol: 'anthropic', model: 'anthropic.claude-only-v1:0' }, fault: { status: 429, retry_after: 7 } });
    const error = await openai.chat.completions.create({ model: 'bedrock/throttled', messages: [{ role: 'user', content: 'hello' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('7');
  });

  it('answers a throttle that named no delay with the Retry-After AWS\'s own clients imply (their first throttled retry waits up to a second)', async () => {
    gateway.simulator.reset();
    gateway.simulator.setFault({ match: { protocol: 'anthropic', model: 'anthropic.claude-only-v1:0' }, fault: { status: 429 } });
    const error = await openai.chat.completions.create({ model: 'bedrock/throttled', messages: [{ role: 'user', content: 'hello' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('1');
  });
});
