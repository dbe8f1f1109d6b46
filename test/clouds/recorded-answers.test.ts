import Anthropic from '@anthropic-ai/sdk';
import { FinishReason, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorAwsCredentials, type SimulatorProtocol } from '@switchyard/simulator';
import { recording } from '../helpers/replay-provider.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { cloudEndpoint, cloudModel } from './cloud-catalog.js';

/**
 * Recorded real answers of the clouds, replayed by the simulator's cloud routes (`play`): the
 * gateway reaches them on Azure's URLs with the `api-key` header (v1 API and deployment API) and
 * on Vertex's `publishers/...` URLs with a bearer token from the service account, on Bedrock's
 * InvokeModel URL signed with SigV4, and the
 * simulator checks both before it answers with the recording byte for byte. Every recording goes
 * to a client of each style (Chat Completions, Responses, Messages, Gemini), each read by its
 * official SDK; every style must see what the cloud said. Sources: SOURCES.md beside each file.
 */
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const serviceAccount = (url: string) =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'sim-project',
    private_key_id: 'key-1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: 'gateway@sim-project.iam.gserviceaccount.com',
    token_uri: `${url}/google/token`,
  });

process.env.SIM_RECORDED_AWS_ACCESS_KEY_ID = simulatorAwsCredentials.accessKeyId;
process.env.SIM_RECORDED_AWS_SECRET_ACCESS_KEY = simulatorAwsCredentials.secretAccessKey;

const model = (id: string, provider: string, upstream: string) =>
  cloudModel(id, 'Recorded', cloudEndpoint(provider, upstream, { parameters: '[max_tokens, temperature, tools, tool_choice, reasoning]', maxCompletionTokens: 8000 }), { contextLength: 200000 });
const catalogYaml = (url: string) => `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: azure-v1, name: Azure v1, api: openai, platform: {kind: azure}, base_url: "${url}/azure/openai/v1", api_key: sim-key}
  - {id: azure-deployments, name: Azure deployments, api: openai, platform: {kind: azure, api_version: "2024-10-21"}, base_url: "${url}/azure/openai", api_key: sim-key}
  - {id: vertex-gemini, name: Vertex Gemini, api: gemini, platform: {kind: vertex, project: sim-project, location: global, service_account: '${serviceAccount(url)}'}, base_url: "${url}/vertex"}
  - {id: vertex-claude, name: Vertex Claude, api: anthropic, platform: {kind: vertex, project: sim-project, location: us-east5, service_account: '${serviceAccount(url)}'}, base_url: "${url}/vertex"}
  - {id: bedrock-claude, name: Bedrock Claude, api: anthropic, platform: {kind: bedrock, region: us-east-1, access_key_id: "\${SIM_RECORDED_AWS_ACCESS_KEY_ID}", secret_access_key: "\${SIM_RECORDED_AWS_SECRET_ACCESS_KEY}"}, base_url: "${url}/bedrock"}
models:
${model('azure/v1', 'azure-v1', 'gpt-5-nano')}${model('azure/deployment', 'azure-deployments', 'my-deployment')}${model('vertex/gemini', 'vertex-gemini', 'gemini-2.5-flash')}${model('vertex/claude', 'vertex-claude', 'claude-sonnet-4-5@20250929')}${model('bedrock/claude', 'bedrock-claude', 'anthropic.claude-sonnet-4-5-20250929-v1:0')}`;

interface Case {
  /** A recording in `src/providers/<file>` (see `recording`). */
  file: string;
  models: string[];
  protocol: SimulatorProtocol;
  /** The URL the gateway must have used (the start of its path). */
  path: (model: string) => string;
}

const azurePath = (model: string) => (model === 'azure/v1' ? '/azure/openai/v1/chat/completions' : '/azure/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21');
const azure = (file: string): Case => ({ file, models: ['azure/v1', 'azure/deployment'], protocol: 'openai', path: azurePath });
const vertexGemini = (file: string): Case => ({
  file,
  models: ['vertex/gemini'],
  protocol: 'gemini',
  path: () => '/vertex/v1/projects/sim-project/locations/global/publishers/google/models/gemini-2.5-flash:',
});
const vertexClaude = (file: string): Case => ({
  file,
  models: ['vertex/claude'],
  protocol: 'anthropic',
  path: () => '/vertex/v1/projects/sim-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5%4020250929:',
});

const bedrockClaude = (file: string): Case => ({
  file,
  models: ['bedrock/claude'],
  protocol: 'anthropic',
  path: () => `/bedrock/model/${encodeURIComponent('anthropic.claude-sonnet-4-5-20250929-v1:0')}/invoke`,
});

const cases: Case[] = [
  // Azure OpenAI (model router, gpt-5-nano): the opening chunk of prompt filter results and no choices, content_filter_results per chunk.
  azure('openai/azure-model-router.txt'),
  // Azure AI Foundry (DeepSeek): reasoning_content, answer and stream.
  azure('openai/azure-deepseek-reasoning.json'),
  azure('openai/azure-deepseek-reasoning.txt'),
  // Gemini on Vertex AI: a stream of partial function-call arguments.
  vertexGemini('gemini/stream-partial-args-nested.sse'),
  // Gemini on Vertex answers in the Gemini API's body; these two were recorded from the Gemini API.
  vertexGemini('gemini/stream-partial-args.sse'),
  vertexGemini('gemini/stream-tool-use-prompt-usage.sse'),
  // Claude answers on Vertex in Anthropic's own Messages body; these were recorded from Anthropic's API.
  vertexClaude('anthropic/recorded-text-response.json'),
  vertexClaude('anthropic/recorded-thinking-stream.sse'),
  vertexClaude('anthropic/recorded-thinking-tool-use-response.json'),
  vertexClaude('anthropic/recorded-refusal-stream.sse'),
  // Claude's InvokeModel answer on Bedrock is Anthropic's own Messages body (recorded from
  // Anthropic's API; no public InvokeModel recording exists). Streams are Bedrock's binary frames
  // around each event, so only whole answers are replayed here.
  bedrockClaude('anthropic/recorded-text-response.json'),
  bedrockClaude('anthropic/recorded-thinking-tool-use-response.json'),
];

let gateway: SimulatedGateway;
let openai: OpenAI;
let anthropic: Anthropic;
let genai: GoogleGenAI;

beforeAll(async () => {
  gateway = await startSimulatedGateway({ simulator: { apiKey: 'sim-key', googleServiceAccountPublicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() }, catalogYaml, credits: 1000 });
  openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } });
});
afterAll(async () => gateway?.close());

/** What a client got: its text, reasoning, tool calls and whether it was refused, style-neutral. */
interface Seen {
  text: string;
  reasoning: boolean;
  toolCalls: string[];
  refused: boolean;
}

const styles: Record<string, (model: string, stream: boolean) => Promise<Seen>> = {
  async chat(model, stream) {
    const body = { model, messages: [{ role: 'user' as const, content: 'x' }] };
    const completion = stream ? await openai.chat.completions.stream(body).finalChatCompletion() : await openai.chat.completions.create(body);
    const choice = completion.choices[0]!;
    const message = choice.message as OpenAI.ChatCompletionMessage & { reasoning?: string; reasoning_content?: string; reasoning_details?: unknown[] };
    return {
      text: message.content ?? '',
      reasoning: Boolean(message.reasoning || message.reasoning_content) || (message.reasoning_details?.length ?? 0) > 0,
      toolCalls: (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call.function.name] : [])),
      refused: choice.finish_reason === 'content_filter' || Boolean(message.refusal),
    };
  },
  async responses(model, stream) {
    const body = { model, input: 'x' };
    const response = stream ? await openai.responses.stream(body).finalResponse() : await openai.responses.create(body);
    if (response.status === 'failed') throw new Error(`response failed: ${response.error?.message}`);
    const parts = response.output.flatMap((item) => (item.type === 'message' ? item.content : []));
    return {
      text: parts.map((part) => (part.type === 'output_text' ? part.text : '')).join(''),
      reasoning: response.output.some((item) => item.type === 'reasoning'),
      toolCalls: response.output.flatMap((item) => (item.type === 'function_call' ? [item.name] : [])),
      refused: parts.some((part) => part.type === 'refusal') || response.incomplete_details?.reason === 'content_filter',
    };
  },
  async messages(model, stream) {
    const body = { model, max_tokens: 4096, messages: [{ role: 'user' as const, content: 'x' }] };
    const message = stream ? await anthropic.messages.stream(body).finalMessage() : await anthropic.messages.create(body);
    return {
      text: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
      reasoning: message.content.some((block) => block.type === 'thinking' || block.type === 'redacted_thinking'),
      toolCalls: message.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : [])),
      refused: message.stop_reason === 'refusal',
    };
  },
  async gemini(model, stream) {
    const request = { model, contents: 'x' };
    const chunks = stream ? [] : [await genai.models.generateContent(request)];
    if (stream) for await (const chunk of await genai.models.generateContentStream(request)) chunks.push(chunk);
    const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
    return {
      text: parts.map((part) => (part.thought || part.text === undefined ? '' : part.text)).join(''),
      // Reasoning reaches a Gemini client as thought parts or as thought signatures on its parts.
      reasoning: parts.some((part) => part.thought === true || part.thoughtSignature !== undefined),
      toolCalls: parts.flatMap((part) => (part.functionCall?.name ? [part.functionCall.name] : [])),
      // A policy stop of any provider is SAFETY in this style.
      refused: chunks.some((chunk) => chunk.candidates?.[0]?.finishReason === FinishReason.SAFETY),
    };
  },
};

describe.each(cases)('$file', ({ file, models, protocol, path }) => {
  const stream = !file.endsWith('.json');
  let reference: Seen | undefined;

  it.each(models.flatMap((id) => Object.keys(styles).map((style) => ({ id, style }))))('reaches a $style client through $id', async ({ id, style }) => {
    gateway.simulator.play({ protocol, ...recording(file) });
    const seen = await styles[style]!(id, stream);
    // The recording was answered on the cloud's URL, to a request the cloud's auth let through.
    const received = gateway.simulator.lastRequest(protocol)!;
    expect(received.path.startsWith(path(id))).toBe(true);
    if (protocol === 'openai') expect(received.headers['api-key']).toBe('sim-key');
    else if (id.startsWith('bedrock/')) expect(received.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=/);
    else expect(received.headers.authorization).toMatch(/^Bearer ya29\.sim\./);
    expect(seen.text.length + seen.toolCalls.length + Number(seen.refused)).toBeGreaterThan(0);
    // The recording answered, not the simulator's own reply.
    expect(seen.text).not.toMatch(/^Simulated reply/);
    reference ??= seen;
    expect(seen.text.replace(/\s+/g, ' ')).toBe(reference.text.replace(/\s+/g, ' '));
    expect(seen.toolCalls).toEqual(reference.toolCalls);
    expect(seen.reasoning).toBe(reference.reasoning);
    expect(seen.refused).toBe(reference.refused);
  });
});

describe("Azure's content filter refusing the prompt (a recorded 400 of code content_filter)", () => {
  const send: Record<string, (model: string) => Promise<unknown>> = {
    chat: (model) => openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }),
    'streaming chat': (model) => openai.chat.completions.stream({ model, messages: [{ role: 'user', content: 'x' }] }).finalChatCompletion(),
    responses: (model) => openai.responses.create({ model, input: 'x' }),
    messages: (model) => anthropic.messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: 'x' }] }),
    gemini: (model) => genai.models.generateContent({ model, contents: 'x' }),
  };
  it.each(['azure/v1', 'azure/deployment'].flatMap((id) => Object.keys(send).map((style) => ({ id, style }))))('is a 400 for a $style client through $id, never a 5xx', async ({ id, style }) => {
    gateway.simulator.play({ protocol: 'openai', ...recording('openai/azure-content-filter-error.json', 400) });
    const error = (await send[style]!(id).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as { status?: number; message?: string } | undefined;
    expect(error?.status).toBe(400);
    expect(error?.message).toMatch(/content management policy/i);
    expect(gateway.simulator.stats().protocols.openai.requests).toBeGreaterThan(0);
  });
});
