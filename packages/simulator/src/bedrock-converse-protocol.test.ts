import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { simulatorAwsCredentials, simulatorAwsSessionCredentials } from './aws-sigv4.js';
import type { Simulator } from './simulator-types.js';
import { startSimulator } from './start-simulator.js';

/**
 * The simulator's Converse routes against AWS's own client (`@aws-sdk/client-bedrock-runtime`):
 * the client signs with SigV4 (or sends a Bedrock API key), and parses the JSON answers, the
 * binary event stream and the errors by Bedrock's service model. If the real client reads it,
 * the simulator speaks Bedrock.
 */
let simulator: Simulator;
const modelId = 'amazon.nova-pro-v1:0';

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'bedrock-api-key-sim', replyTokens: 6, chunkTokens: 2 });
});
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

const client = (credentials: ConstructorParameters<typeof BedrockRuntimeClient>[0] = { credentials: simulatorAwsCredentials }) =>
  // The client speaks HTTP/2 by default; the simulator, like most test servers, HTTP/1.1.
  new BedrockRuntimeClient({ region: 'us-east-1', endpoint: simulator.baseUrls.bedrock, maxAttempts: 1, requestHandler: new NodeHttpHandler(), ...credentials });

const weatherTool = { toolSpec: { name: 'get_weather', description: 'Weather for a city', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } } };

async function collect(stream: AsyncIterable<ConverseStreamOutput> | undefined): Promise<ConverseStreamOutput[]> {
  const events: ConverseStreamOutput[] = [];
  for await (const event of stream ?? []) events.push(event);
  return events;
}

describe('Bedrock Converse through the AWS SDK', () => {
  it('answers Converse signed with SigV4, the model id taken from the path', async () => {
    const answer = await client().send(new ConverseCommand({ modelId, system: [{ text: 'be brief' }], messages: [{ role: 'user', content: [{ text: 'good morning' }] }] }));
    expect(answer.output?.message).toEqual({ role: 'assistant', content: [{ text: `Simulated reply from ${modelId}: good morning` }] });
    expect(answer.stopReason).toBe('end_turn');
    expect(answer.usage).toMatchObject({ outputTokens: 6, inputTokens: expect.any(Number), totalTokens: expect.any(Number) });
    const received = simulator.lastRequest('bedrock')!;
    expect(received.path).toBe('/bedrock/model/amazon.nova-pro-v1%3A0/converse');
    expect(received.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIASIMULATOREXAMPLE1\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
  });

  it('calls a tool, and stops at max tokens and stop sequences', async () => {
    const tools = await client().send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'weather?' }] }], toolConfig: { tools: [weatherTool], toolChoice: { any: {} } } }));
    expect(tools.stopReason).toBe('tool_use');
    expect(tools.output?.message?.content?.[0]?.toolUse).toMatchObject({ name: 'get_weather', input: { city: expect.any(String) }, toolUseId: expect.stringMatching(/^tooluse_/) });
    const short = await client().send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'a b c d' }] }], inferenceConfig: { maxTokens: 2 } }));
    expect(short.stopReason).toBe('max_tokens');
    const stopped = await client().send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'one two three' }] }], inferenceConfig: { stopSequences: ['two'] } }));
    expect(stopped.stopReason).toBe('stop_sequence');
  });

  it('streams text and tool calls as event stream frames the SDK decodes', async () => {
    const text = await client().send(new ConverseStreamCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'good morning' }] }] }));
    const events = await collect(text.stream);
    expect(events[0]).toEqual({ messageStart: { role: 'assistant' } });
    expect(events.flatMap((event) => (event.contentBlockDelta?.delta?.text ? [event.contentBlockDelta.delta.text] : [])).join('')).toBe(`Simulated reply from ${modelId}: good morning`);
    expect(events.find((event) => event.messageStop)?.messageStop?.stopReason).toBe('end_turn');
    expect(events.at(-1)?.metadata?.usage).toMatchObject({ outputTokens: 6 });

    const call = await client().send(new ConverseStreamCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'weather?' }] }], toolConfig: { tools: [weatherTool] } }));
    const callEvents = await collect(call.stream);
    expect(callEvents.find((event) => event.contentBlockStart)?.contentBlockStart?.start?.toolUse).toMatchObject({ name: 'get_weather' });
    const input = callEvents.flatMap((event) => (event.contentBlockDelta?.delta?.toolUse?.input ? [event.contentBlockDelta.delta.toolUse.input] : [])).join('');
    expect(JSON.parse(input)).toEqual({ city: expect.any(String) });
    expect(callEvents.find((event) => event.messageStop)?.messageStop?.stopReason).toBe('tool_use');
  });

  it('takes a tool result back and answers in text', async () => {
    const answer = await client().send(new ConverseCommand({
      modelId,
      messages: [
        { role: 'user', content: [{ text: 'weather?' }] },
        { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'get_weather', input: { city: 'Oslo' } } }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ json: { sky: 'clear' } }] } }] },
      ],
      toolConfig: { tools: [weatherTool] },
    }));
    expect(answer.stopReason).toBe('end_turn');
    expect(answer.output?.message?.content?.[0]?.text).toMatch(/^Simulated reply from/);
  });

  it('refuses, for a Mistral model, tool call ids that are not nine letters and digits', async () => {
    const conversation = (toolUseId: string) => new ConverseCommand({
      modelId: 'mistral.mistral-large-2407-v1:0',
      messages: [
        { role: 'user', content: [{ text: 'weather?' }] },
        { role: 'assistant', content: [{ toolUse: { toolUseId, name: 'get_weather', input: {} } }] },
        { role: 'user', content: [{ toolResult: { toolUseId, content: [{ text: 'sunny' }] } }] },
      ],
      toolConfig: { tools: [weatherTool] },
    });
    await expect(client().send(conversation('tooluse_kZJMlvQmRJ6eAyJE5GIl7Q'))).rejects.toMatchObject({ name: 'ValidationException' });
    expect((await client().send(conversation('a1b2c3d4e'))).stopReason).toBe('end_turn');
  });

  it('accepts temporary credentials with their session token, and a Bedrock API key as a bearer token', async () => {
    const session = await client({ credentials: simulatorAwsSessionCredentials }).send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));
    expect(session.stopReason).toBe('end_turn');
    expect(simulator.lastRequest('bedrock')!.headers['x-amz-security-token']).toBe(simulatorAwsSessionCredentials.sessionToken);
    const bearer = await client({ token: { token: 'bedrock-api-key-sim' }, authSchemePreference: ['httpBearerAuth'] }).send(
      new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }),
    );
    expect(bearer.stopReason).toBe('end_turn');
    expect(simulator.lastRequest('bedrock')!.headers.authorization).toBe('Bearer bedrock-api-key-sim');
  });

  it('refuses a wrong secret key and a wrong API key as AWS does', async () => {
    const forged = client({ credentials: { ...simulatorAwsCredentials, secretAccessKey: 'not-the-secret' } });
    await expect(forged.send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
      $metadata: { httpStatusCode: 403 },
    });
    const wrongKey = client({ token: { token: 'not-the-key' }, authSchemePreference: ['httpBearerAuth'] });
    await expect(wrongKey.send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
  });

  it('answers errors as the SDK’s typed exceptions, and a stream error as an exception frame', async () => {
    await expect(client().send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: '[[sim:status=429]] hi' }] }] }))).rejects.toMatchObject({
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 429 },
    });
    await expect(client().send(new ConverseCommand({ modelId, messages: [{ role: 'assistant', content: [{ text: 'hi' }] }] }))).rejects.toMatchObject({ name: 'ValidationException' });
    const cut = await client().send(new ConverseStreamCommand({ modelId, messages: [{ role: 'user', content: [{ text: '[[sim:error_after=2]] good morning' }] }] }));
    await expect(collect(cut.stream)).rejects.toMatchObject({ name: 'ServiceUnavailableException' });
  });
});
