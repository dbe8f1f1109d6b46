import Anthropic from '@anthropic-ai/sdk';
import { FinishReason, GoogleGenAI, Type, type Content } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { cloudEndpoint, cloudModel, weatherTool } from './cloud-catalog.js';

/**
 * Azure OpenAI as a provider kind (`api: openai` with `platform: {kind: azure}`), through the
 * simulator's Azure routes, which take only the `api-key` header and answer with Azure's content
 * filter annotations: the v1 API and the deployment API, from every client style's official SDK.
 */
const endpoint = (provider: string, upstream: string) => cloudEndpoint(provider, upstream);
const model = (id: string, endpoints: string) => cloudModel(id, 'Azure', endpoints);
const catalogYaml = (url: string) => `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: azure-v1, name: Azure v1, api: openai, platform: {kind: azure}, base_url: "${url}/azure/openai/v1", api_key: sim-key}
  - {id: azure-deployments, name: Azure deployments, api: openai, platform: {kind: azure, api_version: "2024-10-21"}, base_url: "${url}/azure/openai", api_key: sim-key}
models:
${model('azure/v1-model', endpoint('azure-v1', 'gpt-4o-azure'))}${model('azure/deployment-model', endpoint('azure-deployments', 'my-gpt-deployment'))}`;

let gateway: SimulatedGateway;
let openai: OpenAI;
let anthropic: Anthropic;
let genai: GoogleGenAI;

beforeAll(async () => {
  gateway = await startSimulatedGateway({ simulator: { apiKey: 'sim-key' }, catalogYaml });
  openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } });
});
afterAll(async () => gateway?.close());
afterEach(() => gateway.simulator.reset());

describe.each([
  { id: 'azure/v1-model', upstream: 'gpt-4o-azure', path: '/azure/openai/v1/chat/completions' },
  { id: 'azure/deployment-model', upstream: 'my-gpt-deployment', path: '/azure/openai/deployments/my-gpt-deployment/chat/completions?api-version=2024-10-21' },
])('Azure OpenAI $id', ({ id, upstream, path }) => {
  it('Chat Completions: answers with the api-key header on the Azure URL, streaming and not', async () => {
    const completion = await openai.chat.completions.create({ model: id, messages: [{ role: 'user', content: 'hello azure' }] });
    expect(completion.choices[0].message.content).toMatch(new RegExp(`^Simulated reply from ${upstream}: `));
    expect(completion.choices[0].finish_reason).toBe('stop');
    const received = gateway.simulator.lastRequest('openai')!;
    expect(received.path).toBe(path);
    expect(received.headers['api-key']).toBe('sim-key');
    expect(received.headers.authorization).toBeUndefined();

    const stream = await openai.chat.completions.create({ model: id, messages: [{ role: 'user', content: 'hello azure' }], stream: true });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toMatch(new RegExp(`^Simulated reply from ${upstream}: `));
    expect(usage?.completion_tokens).toBe(16);
  });

  it('Chat Completions: calls tools, streaming and not', async () => {
    const request = { model: id, messages: [{ role: 'user' as const, content: 'What is the weather?' }], tools: [{ type: 'function' as const, function: weatherTool }] };
    const completion = await openai.chat.completions.create(request);
    const call = completion.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect([call.function.name, JSON.parse(call.function.arguments)]).toEqual(['get_weather', { city: 'sample' }]);
    const streamed = await openai.chat.completions.stream(request).finalChatCompletion();
    expect(streamed.choices[0].finish_reason).toBe('tool_calls');
    expect((streamed.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.name).toBe('get_weather');
  });

  it('Messages: answers and calls tools, streaming and not', async () => {
    const message = await anthropic.messages.create({ model: id, max_tokens: 200, messages: [{ role: 'user', content: 'hello azure' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(new RegExp(`^Simulated reply from ${upstream}: `)) });
    const tools = [{ name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters as Anthropic.Tool.InputSchema }];
    const final = await anthropic.messages.stream({ model: id, max_tokens: 200, messages: [{ role: 'user', content: 'What is the weather?' }], tools }).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: { city: 'sample' } });
  });

  it('Responses: answers and calls tools, streaming and not', async () => {
    const response = await openai.responses.create({ model: id, input: 'hello azure' });
    expect(response.output_text).toMatch(new RegExp(`^Simulated reply from ${upstream}: `));
    const tools = [{ type: 'function' as const, name: weatherTool.name, description: weatherTool.description, parameters: weatherTool.parameters, strict: false }];
    const streamed = await openai.responses.stream({ model: id, input: 'What is the weather?', tools }).finalResponse();
    expect(streamed.output.find((item) => item.type === 'function_call')).toMatchObject({ name: 'get_weather', arguments: '{"city":"sample"}' });
  });

  it('generateContent (Gemini style): text and a tool round trip, streaming and not', async () => {
    const response = await genai.models.generateContent({ model: id, contents: 'hello azure' });
    expect(response.text).toMatch(new RegExp(`^Simulated reply from ${upstream}: `));
    let streamedText = '';
    for await (const chunk of await genai.models.generateContentStream({ model: id, contents: 'hello azure' })) streamedText += chunk.text ?? '';
    expect(streamedText).toMatch(new RegExp(`^Simulated reply from ${upstream}: `));
    expect(gateway.simulator.lastRequest('openai')!.path).toBe(path);
    expect(gateway.simulator.lastRequest('openai')!.headers['api-key']).toBe('sim-key');
    const tools = [{ functionDeclarations: [{ name: weatherTool.name, description: weatherTool.description, parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] } }] }];
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'What is the weather?' }] }];
    const first = await genai.models.generateContent({ model: id, contents, config: { tools } });
    expect(first.functionCalls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'sample' } });
    contents.push(first.candidates![0].content!, { role: 'user', parts: [{ functionResponse: { id: first.functionCalls![0].id, name: 'get_weather', response: { output: 'windy-17' } } }] });
    let text = '';
    for await (const chunk of await genai.models.generateContentStream({ model: id, contents, config: { tools } })) text += chunk.text ?? '';
    expect(text).toMatch(new RegExp(`^Simulated reply from ${upstream}: `));
    expect(JSON.stringify(gateway.simulator.lastRequest('openai')!.body)).toContain('windy-17');
  });

  it('a filtered answer is a finish reason content_filter (not an error) in every style, streaming and not', async () => {
    const messages = [{ role: 'user' as const, content: 'tell me something unsafe please' }];
    const completion = await openai.chat.completions.create({ model: id, messages });
    expect(completion.choices[0].finish_reason).toBe('content_filter');
    expect(completion.choices[0].message.content!.split(' ').length).toBe(8);
    const stream = await openai.chat.completions.create({ model: id, messages, stream: true });
    const reasons: (string | null)[] = [];
    for await (const chunk of stream) for (const choice of chunk.choices) if (choice.finish_reason) reasons.push(choice.finish_reason);
    expect(reasons).toEqual(['content_filter']);
    const translated = await anthropic.messages.create({ model: id, max_tokens: 200, messages });
    expect(translated.stop_reason).toBe('refusal');
    const streamedMessage = await anthropic.messages.stream({ model: id, max_tokens: 200, messages }).finalMessage();
    expect(streamedMessage.stop_reason).toBe('refusal');
    const response = await openai.responses.create({ model: id, input: messages[0].content });
    expect([response.status, response.incomplete_details?.reason]).toEqual(['incomplete', 'content_filter']);
    const streamedResponse = await openai.responses.stream({ model: id, input: messages[0].content }).finalResponse();
    expect(streamedResponse.incomplete_details?.reason).toBe('content_filter');
    const gemini = await genai.models.generateContent({ model: id, contents: messages[0].content });
    expect(gemini.candidates?.[0]?.finishReason).toBe(FinishReason.SAFETY);
    const chunks = [];
    for await (const chunk of await genai.models.generateContentStream({ model: id, contents: messages[0].content })) chunks.push(chunk);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe(FinishReason.SAFETY);
  });
});

describe('Azure OpenAI errors', () => {
  it("passes Azure's 429 on as a rate limit with its Retry-After", async () => {
    gateway.simulator.setFault({ match: { model: 'gpt-4o-azure' }, fault: { status: 429, retry_after: 7 } });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'azure/v1-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/rate|retry/i);
  });

  // Azure says when to retry in milliseconds too, and on some APIs only so (openai/openai-dotnet#838:
  // no retry-after on Azure's Responses API; Azure/azure-openai-benchmark reads only retry-after-ms).
  // The message is Azure's, as quoted in openai/openai-node#1108.
  const azure429 = JSON.stringify({
    error: {
      code: '429',
      message:
        'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-15-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 33 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.',
    },
  });
  it.each([
    { header: 'retry-after-ms', value: '2500', expected: '3' },
    { header: 'x-ms-retry-after-ms', value: '1500', expected: '2' },
  ])("honours Azure's $header alone as the Retry-After it passes on", async ({ header, value, expected }) => {
    gateway.simulator.play({ protocol: 'openai', status: 429, contentType: 'application/json', body: azure429, headers: { [header]: value } });
    const error = await openai.chat.completions.create({ model: 'azure/deployment-model', messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (caught: unknown) => caught as InstanceType<typeof OpenAI.APIError>,
    );
    expect(error?.status).toBe(429);
    expect(error?.headers?.get('retry-after')).toBe(expected);
  });

});
