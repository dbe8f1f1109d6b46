import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content, type GenerateContentResponse } from '@google/genai';
import OpenAI from 'openai';
import { tmpdir } from 'node:os';
import { loadConfig } from '../../src/config/load-config.js';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { createTracing } from '../../src/telemetry/create-tracing.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorAwsCredentials, simulatorAwsSessionCredentials } from '@switchyard/simulator';
import { eventStreamOf, readFixture } from '../../src/providers/bedrock/__fixtures__/read-fixture.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { cloudEndpoint, cloudModel, weatherTool } from './cloud-catalog.js';

/**
 * AWS Bedrock's Converse API as a provider kind (`api: bedrock`): the official SDKs of all four
 * styles through the gateway to the simulator's Converse routes (which answer as bedrock-runtime
 * does, binary event streams included, and check SigV4 signatures or the Bedrock API key as AWS
 * would), and vercel/ai's recorded Converse answers replayed by the simulator through every style.
 */
const parameters = '[max_tokens, temperature, top_p, stop, tools, tool_choice, reasoning, response_format]';
const model = (id: string, provider: string, upstream: string, pricing = '{prompt: 1, completion: 2}') =>
  cloudModel(id, 'Bedrock', cloudEndpoint(provider, upstream, { pricing, parameters }), { input: '[text, image]' });
const catalogYaml = (url: string) => `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: bedrock-key, name: Bedrock (API key), api: bedrock, base_url: "${url}/bedrock", api_key: sim-key}
  - {id: bedrock-sigv4, name: Bedrock (access keys), api: bedrock, platform: {kind: bedrock, region: us-east-1, access_key_id: ${long.accessKeyId}, secret_access_key: "${long.secretAccessKey}"}, base_url: "${url}/bedrock"}
  - {id: bedrock-session, name: Bedrock (temporary keys), api: bedrock, platform: {kind: bedrock, region: us-west-2, access_key_id: ${session.accessKeyId}, secret_access_key: "${session.secretAccessKey}", session_token: "${session.sessionToken}"}, base_url: "${url}/bedrock"}
  - {id: bedrock-forged, name: Bedrock (wrong secret), api: bedrock, platform: {kind: bedrock, region: us-east-1, access_key_id: ${long.accessKeyId}, secret_access_key: not-the-secret}, base_url: "${url}/bedrock"}
models:
${model('bedrock/nova', 'bedrock-key', 'amazon.nova-pro-v1:0')}${model('bedrock/llama', 'bedrock-sigv4', 'meta.llama3-3-70b-instruct-v1:0')}${model('bedrock/mistral', 'bedrock-session', 'mistral.mistral-large-2407-v1:0')}${model('bedrock/forged', 'bedrock-forged', 'amazon.nova-lite-v1:0')}${model('bedrock/claude', 'bedrock-key', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')}`;
const long = simulatorAwsCredentials;
const session = simulatorAwsSessionCredentials;

describe('Bedrock Converse through the official SDKs', () => {
  const spans = new InMemorySpanExporter();
  let gateway: SimulatedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let genai: GoogleGenAI;
  beforeAll(async () => {
    gateway = await startSimulatedGateway({ simulator: { apiKey: 'sim-key' }, catalogYaml, tracing: createTracing(spans, 'switchyard-test', false) });
    openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    genai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } });
  });
  afterAll(async () => gateway?.close());

  const received = () => gateway.simulator.lastRequest('bedrock')!;

  describe.each([
    { id: 'bedrock/nova', upstream: 'amazon.nova-pro-v1:0', path: '/bedrock/model/amazon.nova-pro-v1%3A0/', auth: /^Bearer sim-key$/ },
    { id: 'bedrock/llama', upstream: 'meta.llama3-3-70b-instruct-v1:0', path: '/bedrock/model/meta.llama3-3-70b-instruct-v1%3A0/', auth: /^AWS4-HMAC-SHA256 Credential=AKIASIMULATOREXAMPLE1\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=/ },
    { id: 'bedrock/mistral', upstream: 'mistral.mistral-large-2407-v1:0', path: '/bedrock/model/mistral.mistral-large-2407-v1%3A0/', auth: /^AWS4-HMAC-SHA256 Credential=ASIASIMULATOREXAMPLE2\/\d{8}\/us-west-2\/bedrock\/aws4_request, SignedHeaders=/ },
  ])('$id', ({ id, upstream, path, auth }) => {
    const reply = new RegExp(`^Simulated reply from ${upstream.replace(/[.:]/g, '\\$&')}: `);

    it('Chat Completions: text streaming and not, with usage and cost, and a tool round trip', async () => {
      const completion = await openai.chat.completions.create({ model: id, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello bedrock' }] });
      expect(completion.choices[0]!.message.content).toMatch(reply);
      expect(completion.usage).toMatchObject({ completion_tokens: 16, prompt_tokens: expect.any(Number) });
      expect((completion.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
      expect(received().path).toBe(`${path}converse`);
      expect(received().headers.authorization).toMatch(auth);
      if (id === 'bedrock/mistral') expect(received().headers['x-amz-security-token']).toBe(session.sessionToken);
      expect(received().body).toMatchObject({ system: [{ text: 'Be brief.' }], messages: [{ role: 'user', content: [{ text: 'hello bedrock' }] }] });

      let text = '';
      for await (const chunk of await openai.chat.completions.create({ model: id, messages: [{ role: 'user', content: 'hello bedrock' }], stream: true, stream_options: { include_usage: true } })) {
        text += chunk.choices[0]?.delta?.content ?? '';
      }
      expect(text).toMatch(reply);
      expect(received().path).toBe(`${path}converse-stream`);

      const tools = [{ type: 'function' as const, function: weatherTool }];
      const asked: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather?' }];
      const called = await openai.chat.completions.stream({ model: id, messages: asked, tools }).finalChatCompletion();
      expect(called.choices[0]!.finish_reason).toBe('tool_calls');
      const call = called.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
      expect(call.function.name).toBe('get_weather');
      expect(JSON.parse(call.function.arguments)).toEqual({ city: expect.any(String) });
      const answered = await openai.chat.completions.create({
        model: id,
        tools,
        messages: [...asked, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: 'sunny and warm' }],
      });
      expect(answered.choices[0]!.message.content).toMatch(reply);
      // Mistral on Bedrock takes only nine-character ids (the simulator refuses others, as Bedrock does).
      const sentId = id === 'bedrock/mistral' ? expect.stringMatching(/^[a-zA-Z0-9]{9}$/) : call.id;
      expect(received().body).toMatchObject({
        messages: [
          { role: 'user' },
          { role: 'assistant', content: [{ toolUse: { toolUseId: sentId, name: 'get_weather' } }] },
          { role: 'user', content: [{ toolResult: { toolUseId: sentId, content: [{ text: 'sunny and warm' }] } }] },
        ],
        toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: weatherTool.parameters } } }] },
      });
    });

    it('Responses: text, and a streamed tool round trip', async () => {
      const response = await openai.responses.create({ model: id, input: 'hello bedrock' });
      expect(response.output_text).toMatch(reply);
      const tools = [{ type: 'function' as const, name: weatherTool.name, description: weatherTool.description, parameters: weatherTool.parameters, strict: false }];
      const streamed = await openai.responses.stream({ model: id, input: 'What is the weather?', tools, store: false }).finalResponse();
      const call = streamed.output.find((item) => item.type === 'function_call')!;
      expect(call).toMatchObject({ name: 'get_weather' });
      const answered = await openai.responses.create({
        model: id,
        tools,
        store: false,
        input: [{ role: 'user', content: 'What is the weather?' }, call, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
      });
      expect(answered.output_text).toMatch(reply);
    });

    it('Messages: text, and a streamed tool round trip', async () => {
      const message = await anthropic.messages.create({ model: id, max_tokens: 200, messages: [{ role: 'user', content: 'hello bedrock' }] });
      expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(reply) });
      expect(received().body).toMatchObject({ inferenceConfig: { maxTokens: 200 } });
      const tools = [{ name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters as Anthropic.Tool.InputSchema }];
      const asked: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather?' }];
      const final = await anthropic.messages.stream({ model: id, max_tokens: 200, messages: asked, tools }).finalMessage();
      expect(final.stop_reason).toBe('tool_use');
      const use = final.content.find((block) => block.type === 'tool_use')!;
      expect(use).toMatchObject({ name: 'get_weather', input: { city: expect.any(String) } });
      const answered = await anthropic.messages.create({
        model: id,
        max_tokens: 200,
        tools,
        messages: [...asked, { role: 'assistant', content: final.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] }],
      });
      expect(answered.stop_reason).toBe('end_turn');
      expect(answered.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(reply) });
    });

    it('Gemini: generateContent streaming and not, and a function call round trip', async () => {
      const response = await genai.models.generateContent({ model: id, contents: 'hello bedrock' });
      expect(response.text).toMatch(reply);
      let text = '';
      for await (const chunk of await genai.models.generateContentStream({ model: id, contents: 'hello bedrock' })) text += chunk.text ?? '';
      expect(text).toMatch(reply);
      const tools = [{ functionDeclarations: [{ name: weatherTool.name, description: weatherTool.description, parametersJsonSchema: weatherTool.parameters }] }];
      const contents: Content[] = [{ role: 'user', parts: [{ text: 'What is the weather?' }] }];
      let last: GenerateContentResponse | undefined;
      const calls = [];
      for await (const chunk of await genai.models.generateContentStream({ model: id, contents, config: { tools } })) {
        calls.push(...(chunk.functionCalls ?? []));
        last = chunk;
      }
      expect(calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: expect.any(String) } })]);
      expect(last?.usageMetadata?.candidatesTokenCount).toBeGreaterThan(0);
      const answered = await genai.models.generateContent({
        model: id,
        config: { tools },
        contents: [...contents, { role: 'model', parts: [{ functionCall: calls[0] }] }, { role: 'user', parts: [{ functionResponse: { id: calls[0]!.id, name: 'get_weather', response: { sky: 'clear' } } }] }],
      });
      expect(answered.text).toMatch(reply);
    });
  });

  it('fails a request whose signature the simulator refuses, as AWS would', async () => {
    const refused = await openai.chat.completions.create({ model: 'bedrock/forged', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    // The provider refused the gateway's own credentials: a configuration fault, not the client's.
    expect(refused).toMatchObject({ status: 502, error: { code: 'upstream_error', message: expect.stringContaining('refused the gateway') } });
  });

  it('sends an image as its bytes, and a JSON schema as outputConfig, answered with JSON of it', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const seen = await openai.chat.completions.create({
      model: 'bedrock/nova',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] }],
    });
    expect(seen.choices[0]!.message.content).toMatch(/^Simulated reply/);
    expect(received().body).toMatchObject({ messages: [{ content: [{ text: 'what is this?' }, { image: { format: 'png', source: { bytes: png } } }] }] });
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const structured = await openai.chat.completions.create({
      model: 'bedrock/nova',
      messages: [{ role: 'user', content: 'a city' }],
      response_format: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } },
    });
    expect(JSON.parse(structured.choices[0]!.message.content!)).toEqual({ city: expect.any(String) });
    expect(received().body).toMatchObject({ outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { name: 'place', schema: JSON.stringify(schema) } } } } });
  });

  it('sends a Claude model the temperature without top_p, which Claude refuses together, and says so; other models get both', async () => {
    const both = { messages: [{ role: 'user' as const, content: 'x' }], temperature: 0.2, top_p: 0.9 };
    const claude = await openai.chat.completions.create({ model: 'bedrock/claude', ...both }).withResponse();
    expect(claude.response.headers.get('x-switchyard-omitted')).toBe('top_p');
    expect(received().body).toMatchObject({ inferenceConfig: { temperature: 0.2 } });
    expect((received().body as { inferenceConfig: object }).inferenceConfig).not.toHaveProperty('topP');
    const nova = await openai.chat.completions.create({ model: 'bedrock/nova', ...both }).withResponse();
    expect(nova.response.headers.get('x-switchyard-omitted')).toBeNull();
    expect(received().body).toMatchObject({ inferenceConfig: { temperature: 0.2, topP: 0.9 } });
  });

  it('names the provider aws.bedrock on the provider call’s span', async () => {
    await openai.chat.completions.create({ model: 'bedrock/nova', messages: [{ role: 'user', content: 'hi' }] });
    for (let tries = 0; tries < 100 && !spans.getFinishedSpans().some((span) => span.kind === SpanKind.CLIENT); tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(spans.getFinishedSpans().find((span) => span.kind === SpanKind.CLIENT)?.attributes).toMatchObject({ 'gen_ai.provider.name': 'aws.bedrock', 'gen_ai.request.model': 'amazon.nova-pro-v1:0' });
  });

  it('ends a stream broken by a Bedrock exception frame in the client’s style', async () => {
    const stream = await openai.chat.completions.create({ model: 'bedrock/nova', stream: true, messages: [{ role: 'user', content: '[[sim:error_after=4]] hello bedrock' }] });
    let text = '';
    // The SDK throws on the final chunk's `error` object, after the text that came before it.
    const read = (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })();
    await expect(read).rejects.toThrow(/serviceUnavailableException/);
    expect(text).toMatch(/^Simulated reply/);
  });

  it('answers throttling as 429 once no other endpoint is left, and a refused request as 400', async () => {
    const throttled = await openai.chat.completions.create({ model: 'bedrock/nova', messages: [{ role: 'user', content: '[[sim:status=429]] hi' }] }).catch((error: unknown) => error);
    expect(throttled).toMatchObject({ status: 429 });
    // Bedrock names no delay; the client gets the one AWS's own clients imply.
    expect((throttled as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('1');
    const invalid = await openai.chat.completions.create({ model: 'bedrock/nova', messages: [{ role: 'user', content: 'hi' }], seed: 7 }).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 400 });
    // JSON mode without a schema: Converse has none, so the endpoint refuses it by name.
    const jsonMode = await openai.chat.completions.create({ model: 'bedrock/nova', messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_object' } }).catch((error: unknown) => error);
    expect(jsonMode).toMatchObject({ status: 400, error: { param: 'response_format', message: expect.stringContaining('json_schema') } });
  });
});

/**
 * vercel/ai's recorded Converse answers (src/providers/bedrock/__fixtures__/SOURCES.md), replayed
 * by the simulator's Converse route (`play`): the gateway reaches it signed with SigV4, the
 * simulator checks the signature and the body, then answers with the recording byte for byte
 * (a stream as Bedrock's binary event stream frames) to a client of each of the four styles.
 */
describe('recorded Converse answers through every style', () => {
  let gateway: SimulatedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let genai: GoogleGenAI;
  const pricing = '{prompt: 3, completion: 15, cached_prompt: 0.3, cache_write: 3.75}';
  beforeAll(async () => {
    gateway = await startSimulatedGateway({
      credits: 1000,
      simulator: { apiKey: 'sim-key' },
      catalogYaml: (url) => `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: rec-bedrock, name: Recorded Bedrock, api: bedrock, platform: {kind: bedrock, region: us-east-1, access_key_id: ${long.accessKeyId}, secret_access_key: "${long.secretAccessKey}"}, base_url: "${url}/bedrock", timeouts: {connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}}
models:
${model('rec/bedrock', 'rec-bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', pricing)}`,
    });
    openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    genai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } });
  });
  afterAll(async () => gateway?.close());
  const play = (contentType: string, body: string | Uint8Array) => gateway.simulator.play({ protocol: 'bedrock', contentType, body });
  const sent = () => gateway.simulator.lastRequest('bedrock')!;

  interface Seen {
    text: string;
    reasoning: boolean;
    toolCalls: string[];
  }
  const styles: Record<string, (stream: boolean) => Promise<Seen>> = {
    async chat(stream) {
      const body = { model: 'rec/bedrock', messages: [{ role: 'user' as const, content: 'x' }] };
      const completion = stream ? await openai.chat.completions.stream(body).finalChatCompletion() : await openai.chat.completions.create(body);
      const message = completion.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning?: string };
      return {
        text: message.content ?? '',
        reasoning: Boolean(message.reasoning),
        toolCalls: (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call.function.name] : [])),
      };
    },
    async responses(stream) {
      const body = { model: 'rec/bedrock', input: 'x', store: false };
      const response = stream ? await openai.responses.stream(body).finalResponse() : await openai.responses.create(body);
      if (response.status === 'failed') throw new Error(`response failed: ${response.error?.message}`);
      return {
        text: response.output_text,
        reasoning: response.output.some((item) => item.type === 'reasoning'),
        toolCalls: response.output.flatMap((item) => (item.type === 'function_call' ? [item.name] : [])),
      };
    },
    async messages(stream) {
      const body = { model: 'rec/bedrock', max_tokens: 4096, messages: [{ role: 'user' as const, content: 'x' }] };
      const message = stream ? await anthropic.messages.stream(body).finalMessage() : await anthropic.messages.create(body);
      return {
        text: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
        reasoning: message.content.some((block) => block.type === 'thinking'),
        toolCalls: message.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : [])),
      };
    },
    async gemini(stream) {
      const request = { model: 'rec/bedrock', contents: 'x' };
      const chunks: GenerateContentResponse[] = stream ? [] : [await genai.models.generateContent(request)];
      if (stream) for await (const chunk of await genai.models.generateContentStream(request)) chunks.push(chunk);
      const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
      return {
        text: parts.filter((part) => !part.thought && typeof part.text === 'string').map((part) => part.text).join(''),
        reasoning: parts.some((part) => part.thought === true),
        toolCalls: parts.flatMap((part) => (part.functionCall?.name ? [part.functionCall.name] : [])),
      };
    },
  };

  const recordings = [
    { file: 'amazon-bedrock-text.json', reasoning: false, tools: [] as string[] },
    { file: 'amazon-bedrock-text.chunks.txt', reasoning: false, tools: [] },
    { file: 'amazon-bedrock-reasoning.json', reasoning: true, tools: [] },
    { file: 'amazon-bedrock-reasoning.chunks.txt', reasoning: true, tools: [] },
    { file: 'amazon-bedrock-tool-call.1.json', reasoning: false, tools: ['bash'] },
    { file: 'amazon-bedrock-tool-call.1.chunks.txt', reasoning: false, tools: ['test-tool'] },
    { file: 'amazon-bedrock-tool-no-args.json', reasoning: false, tools: ['updateIssueList'] },
    { file: 'amazon-bedrock-tool-no-args.chunks.txt', reasoning: false, tools: ['updateIssueList'] },
    { file: 'amazon-bedrock-json-tool-text-then-weather-then-json.1.chunks.txt', reasoning: false, tools: ['weather', 'weather'] },
  ];

  describe.each(recordings)('$file', ({ file, reasoning, tools }) => {
    const stream = file.endsWith('.chunks.txt');
    let reference: Seen | undefined;
    it.each(Object.keys(styles))('reaches a %s client', async (style) => {
      if (stream) play('application/vnd.amazon.eventstream', eventStreamOf(file));
      else play('application/json', readFixture(file));
      const seen = await styles[style]!(stream);
      expect(sent().path).toBe(`/bedrock/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/${stream ? 'converse-stream' : 'converse'}`);
      expect(sent().headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
      expect(seen.toolCalls).toEqual(tools);
      expect(seen.reasoning).toBe(reasoning);
      reference ??= seen;
      expect(seen.text.replace(/\s+/g, ' ')).toBe(reference.text.replace(/\s+/g, ' '));
    });
  });

  it('sends recorded reasoning back to Bedrock with its signature on the next turn', async () => {
    play('application/json', readFixture('amazon-bedrock-reasoning.json'));
    const first = await anthropic.messages.create({ model: 'rec/bedrock', max_tokens: 4096, messages: [{ role: 'user', content: 'How many r in strawberry?' }] });
    const thinking = first.content.find((block) => block.type === 'thinking')!;
    expect(thinking.signature).not.toBe('');
    play('application/json', readFixture('amazon-bedrock-text.json'));
    await anthropic.messages.create({
      model: 'rec/bedrock',
      max_tokens: 4096,
      messages: [{ role: 'user', content: 'How many r in strawberry?' }, { role: 'assistant', content: first.content }, { role: 'user', content: 'Sure?' }],
    });
    const recorded = JSON.parse(readFixture('amazon-bedrock-reasoning.json')) as { output: { message: { content: Array<{ reasoningContent?: { reasoningText: { text: string; signature: string } } }> } } };
    expect(((sent().body as { messages: unknown[] }).messages)[1]).toEqual({
      role: 'assistant',
      content: [{ reasoningContent: recorded.output.message.content[0]!.reasoningContent }, { text: 'There are **3** r\'s in "strawberry":\n\n1. st**r**awbe**r****r**y' }],
    });
  });

  it('charges cache reads and writes at their own prices', async () => {
    // Converse's usage with prompt caching (inputTokens is the uncached part), in the shape of
    // https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html; written, not recorded.
    const answer = { output: { message: { role: 'assistant', content: [{ text: 'cached' }] } }, stopReason: 'end_turn', usage: { inputTokens: 100, outputTokens: 10, totalTokens: 3110, cacheReadInputTokens: 2000, cacheWriteInputTokens: 1000 }, metrics: { latencyMs: 5 } };
    play('application/json', JSON.stringify(answer));
    const completion = await openai.chat.completions.create({ model: 'rec/bedrock', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.usage).toMatchObject({ prompt_tokens: 3100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 2000 } });
    // nano-USD per token: prompt 3000, completion 15000, cached 300, cache write 3750.
    const nano = 100n * 3000n + 2000n * 300n + 1000n * 3750n + 10n * 15000n;
    expect(BigInt(Math.round((completion.usage as unknown as { cost: number }).cost * 1e9))).toBe(nano);
  });
});

describe('the built-in catalog', () => {
  it('serves Nova, Llama 3.3 and gpt-oss through Converse with the standard AWS variables, at Bedrock’s list prices', () => {
    expect(loadConfig({}, tmpdir()).providers.find((one) => one.id === 'aws-bedrock')).toMatchObject({ api: 'bedrock', enabled: false, auth: { kind: 'none' } });
    const config = loadConfig({ AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_REGION: 'us-west-2' }, tmpdir());
    expect(config.providers.find((one) => one.id === 'aws-bedrock')).toMatchObject({
      api: 'bedrock',
      enabled: true,
      baseUrl: 'https://bedrock-runtime.us-west-2.amazonaws.com',
      auth: { kind: 'aws-sigv4', accessKeyId: 'AKIAEXAMPLE', region: 'us-west-2', service: 'bedrock' },
    });
    const endpoint = (model: string) => config.models.find((one) => one.id === model)!.endpoints.find((one) => one.provider === 'aws-bedrock')!;
    expect(endpoint('amazon/nova-pro-v1')).toMatchObject({ model: 'amazon.nova-pro-v1:0', pricing: { prompt: 800_000_000n, completion: 3_200_000_000n, cachedPrompt: 200_000_000n } });
    expect(endpoint('amazon/nova-lite-v1').pricing).toMatchObject({ prompt: 60_000_000n, completion: 240_000_000n });
    expect(endpoint('amazon/nova-micro-v1').pricing).toMatchObject({ prompt: 35_000_000n, completion: 140_000_000n });
    expect(endpoint('meta-llama/llama-3.3-70b-instruct')).toMatchObject({ model: 'us.meta.llama3-3-70b-instruct-v1:0', pricing: { prompt: 720_000_000n, completion: 720_000_000n } });
    expect(endpoint('openai/gpt-oss-120b')).toMatchObject({ model: 'openai.gpt-oss-120b-1:0', pricing: { prompt: 150_000_000n, completion: 600_000_000n } });
  });
});
