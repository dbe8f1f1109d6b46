import { BedrockRuntimeClient, InvokeModelCommand, InvokeModelWithResponseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { Hash } from '@smithy/hash-node';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { simulatorAwsCredentials, simulatorAwsSessionCredentials } from './aws-sigv4.js';
import type { Simulator } from './simulator-types.js';
import { startSimulator } from './start-simulator.js';

/**
 * The simulator speaks Bedrock as AWS's own client expects: AWS's Bedrock runtime SDK signs its
 * requests (SigV4) and decodes the event stream itself, so a route, a signature check or a frame
 * that is not Bedrock's fails here, independently of the gateway.
 */
let simulator: Simulator;
const modelId = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'bedrock-api-key-sim', replyTokens: 6 });
});
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

// HTTP/1.1, which Bedrock also serves (the SDK's default handler would speak HTTP/2).
const client = (credentials = simulatorAwsCredentials) =>
  new BedrockRuntimeClient({ region: 'us-east-1', endpoint: `${simulator.url}/bedrock`, credentials, maxAttempts: 1, requestHandler: new NodeHttpHandler() });

const body = (text: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, messages: [{ role: 'user', content: text }], ...extra });

async function streamEvents(response: { body?: AsyncIterable<{ chunk?: { bytes?: Uint8Array } }> }): Promise<Array<Record<string, unknown>>> {
  const events: Array<Record<string, unknown>> = [];
  for await (const item of response.body!) events.push(JSON.parse(Buffer.from(item.chunk!.bytes!).toString('utf8')) as Record<string, unknown>);
  return events;
}

describe('Bedrock InvokeModel for Claude through AWS\'s SDK', () => {
  it.each([
    ['long-term keys', simulatorAwsCredentials],
    ['temporary keys with their session token', simulatorAwsSessionCredentials],
  ])('InvokeModel with %s answers Anthropic\'s message', async (_name, credentials) => {
    const response = await client(credentials).send(new InvokeModelCommand({ modelId, contentType: 'application/json', accept: 'application/json', body: body('hello bedrock') }));
    const message = JSON.parse(Buffer.from(response.body).toString('utf8')) as Record<string, unknown>;
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: modelId, stop_reason: 'end_turn', content: [{ type: 'text', text: expect.stringMatching(/^Simulated reply from anthropic\.claude-sonnet-4-5-20250929-v1:0: /) }] });
    const received = simulator.lastRequest('anthropic')!;
    // The SDK sends the model id's colon encoded, and signs it encoded twice.
    expect(received.path).toBe('/bedrock/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
    expect(received.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/\\d{8}/us-east-1/bedrock/aws4_request`));
  });

  it('InvokeModelWithResponseStream: chunk frames the SDK decodes into Anthropic\'s stream events, a tool call among them', async () => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const response = await client().send(new InvokeModelWithResponseStreamCommand({ modelId, contentType: 'application/json', body: body('What is the weather?', { tools }) }));
    const events = await streamEvents(response);
    expect(events[0]).toMatchObject({ type: 'message_start', message: { role: 'assistant' } });
    expect(events.find((event) => event.type === 'content_block_start')).toMatchObject({ content_block: { type: 'tool_use', name: 'get_weather' } });
    expect(events.at(-2)).toMatchObject({ type: 'message_delta', delta: { stop_reason: 'tool_use' } });
    expect(events.at(-1)).toMatchObject({ type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: expect.any(Number), outputTokenCount: expect.any(Number) } });
    expect(simulator.lastRequest('anthropic')!.path).toBe('/bedrock/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream');
  });

  it('a mid-stream exception reaches the SDK as Bedrock\'s exception', async () => {
    simulator.setFault({ match: { protocol: 'anthropic' }, fault: { error_after: 2 } });
    const response = await client().send(new InvokeModelWithResponseStreamCommand({ modelId, contentType: 'application/json', body: body('hello bedrock') }));
    await expect(streamEvents(response)).rejects.toMatchObject({ name: 'ServiceUnavailableException' });
  });

  it('a frame cut in half fails AWS\'s decoder', async () => {
    simulator.setFault({ match: { protocol: 'anthropic' }, fault: { malformed_after: 1 } });
    const response = await client().send(new InvokeModelWithResponseStreamCommand({ modelId, contentType: 'application/json', body: body('hello bedrock') }));
    await expect(streamEvents(response)).rejects.toThrow();
  });

  it('errors carry their type as AWS\'s SDK reads it', async () => {
    simulator.setFault({ match: { protocol: 'anthropic' }, fault: { status: 429 }, times: 1 });
    await expect(client().send(new InvokeModelCommand({ modelId, body: body('hello') }))).rejects.toMatchObject({ name: 'ThrottlingException', $metadata: { httpStatusCode: 429 } });
    await expect(client().send(new InvokeModelCommand({ modelId, body: JSON.stringify({ model: modelId, anthropic_version: 'bedrock-2023-05-31', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }) }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('extraneous key [model] is not permitted'),
    });
  });

  it('refuses a wrong secret, an unknown key, a missing session token and a tampered request as AWS does', async () => {
    const send = (credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) => client(credentials).send(new InvokeModelCommand({ modelId, body: body('hello') }));
    await expect(send({ ...simulatorAwsCredentials, secretAccessKey: 'wrong' })).rejects.toMatchObject({ name: 'InvalidSignatureException', $metadata: { httpStatusCode: 403 } });
    await expect(send({ accessKeyId: 'AKIAUNKNOWNKEY000000', secretAccessKey: 'x' })).rejects.toMatchObject({ name: 'UnrecognizedClientException', $metadata: { httpStatusCode: 403 } });
    await expect(send({ accessKeyId: simulatorAwsSessionCredentials.accessKeyId, secretAccessKey: simulatorAwsSessionCredentials.secretAccessKey })).rejects.toMatchObject({ name: 'UnrecognizedClientException' });

    // Signed by AWS's signer, then the body changed on the way: the signature no longer covers it.
    const url = `${simulator.url}/bedrock/model/${encodeURIComponent(modelId)}/invoke`;
    const signedBody = body('hello');
    const headers = await signWithAws(url, signedBody);
    const genuine = await fetch(url, { method: 'POST', headers, body: signedBody });
    expect(genuine.status).toBe(200);
    const tampered = await fetch(url, { method: 'POST', headers, body: body('hellO') });
    expect(tampered.status).toBe(403);
    expect(tampered.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
    expect(await tampered.json()).toEqual({ message: expect.stringContaining('The request signature we calculated does not match') });
    const unsigned = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: signedBody });
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get('x-amzn-errortype')).toMatch(/^MissingAuthenticationTokenException:/);
  });

  it('accepts a Bedrock API key as a bearer token, and refuses another', async () => {
    const url = `${simulator.url}/bedrock/model/${encodeURIComponent(modelId)}/invoke`;
    const ok = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer bedrock-api-key-sim', 'content-type': 'application/json' }, body: body('hello') });
    expect(ok.status).toBe(200);
    const refused = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer not-the-key', 'content-type': 'application/json' }, body: body('hello') });
    expect(refused.status).toBe(403);
  });
});

class Sha256 extends Hash {
  constructor(secret?: ConstructorParameters<typeof Hash>[1]) {
    super('sha256', secret);
  }
}

/** The headers AWS's own SigV4 signer adds to a POST of `body` to `url` with the simulator's long-term keys (no x-amz-content-sha256, as the Bedrock SDK signs). */
async function signWithAws(url: string, body: string): Promise<Record<string, string>> {
  const target = new URL(url);
  const signer = new SignatureV4({ credentials: simulatorAwsCredentials, region: 'us-east-1', service: 'bedrock', sha256: Sha256, applyChecksum: false });
  const signed = await signer.sign(new HttpRequest({ method: 'POST', protocol: target.protocol, hostname: target.hostname, port: Number(target.port), path: target.pathname, headers: { host: target.host, 'content-type': 'application/json' }, body }));
  // fetch writes `host` itself, from the URL.
  const { host: _host, ...headers } = signed.headers as Record<string, string>;
  return headers;
}
