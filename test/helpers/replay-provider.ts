import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { closeServer, listenLocally } from '../../src/providers/shared/__fixtures__/listen-locally.js';

/** One recorded provider answer: the status, content type and body as they were recorded. */
export interface Recording {
  status?: number;
  contentType: string;
  body: string;
}

export interface ReplayProvider {
  url: string;
  /** Queues answers; every upstream request takes the next one. */
  play(...recordings: Recording[]): void;
  /** Forgets the queued answers and the requests seen (between tests). */
  reset(): void;
  /** What the gateway sent upstream, in order. */
  requests: Array<{ url: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** A provider that answers with recordings of real provider traffic instead of simulating it. */
export async function startReplayProvider(): Promise<ReplayProvider> {
  const queue: Recording[] = [];
  const requests: ReplayProvider['requests'] = [];
  const server = createServer(async (request, response) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    requests.push({ url: request.url ?? '', headers: request.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) });
    const next = queue.shift();
    if (!next) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"no recording queued"}}');
      return;
    }
    response.writeHead(next.status ?? 200, { 'content-type': next.contentType });
    response.end(next.body);
  });
  const url = await listenLocally(server);
  return {
    url,
    play: (...recordings) => queue.push(...recordings),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    requests,
    close: () => closeServer(server),
  };
}

/** A recording from a provider's `__fixtures__` folder (`provider/file`). */
export function recording(path: string, status = 200): Recording {
  const body = readFileSync(new URL(`../../src/providers/${path.replace('/', '/__fixtures__/')}`, import.meta.url), 'utf8');
  const stream = path.endsWith('.sse') || path.endsWith('.txt');
  return { status, contentType: stream ? 'text/event-stream' : 'application/json', body };
}

/**
 * An Anthropic stream recorded as one JSON event per line (vercel/ai's `.chunks.txt`), kept as
 * recorded, framed as the `event:`/`data:` SSE events Anthropic sends.
 */
export function anthropicChunksRecording(file: string): Recording {
  const lines = recording(`anthropic/${file}`).body.split('\n').filter((line) => line.trim() !== '');
  const body = lines.map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`).join('');
  return { status: 200, contentType: 'text/event-stream', body };
}

/** A catalog entry for an advisor model (Anthropic's advisor tool) on both recorded Anthropic providers, at 5 / 25 USD per M. */
export function replayAdvisorYaml(providerModel: string): string {
  const endpoint = (provider: string) => `      - provider: ${provider}\n        model: ${providerModel}\n        pricing: {prompt: 5, completion: 25}\n`;
  return `  - id: rec/advisor\n    name: "Recorded: advisor"\n    context_length: 200000\n    modalities: {input: [text], output: [text]}\n    endpoints:\n${endpoint('rec-anthropic')}${endpoint('rec-anthropic-native')}`;
}

/** A catalog with one model per provider protocol, each served by the replay provider. */
export function replayCatalogYaml(replayUrl: string): string {
  const timeouts = '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  const model = (id: string, provider: string, upstream: string) => `  - id: ${id}
    name: "Recorded: ${id}"
    context_length: 200000
    modalities: {input: [text], output: [text]}
    endpoints:
      - provider: ${provider}
        model: ${upstream}
        pricing: {prompt: 1, completion: 2}
        supported_parameters: [max_tokens, temperature, tools, tool_choice, reasoning]
        max_completion_tokens: 8000
`;
  // The recordings are of many vendors (xAI, Mistral, Perplexity, DeepSeek, Moonshot, Anthropic)
  // and check what the translation makes of their answers in every style, so nothing is relayed
  // natively here; rec/openai-native and rec/anthropic-native are the same recordings with
  // pass-through on.
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: rec-openai, name: Recorded OpenAI-wire, api: openai, base_url: "${replayUrl}/v1", api_key: k, pass_through: false, timeouts: ${timeouts}}
  - {id: rec-openai-native, name: Recorded OpenAI-wire (pass-through), api: openai, base_url: "${replayUrl}/v1", api_key: k, timeouts: ${timeouts}}
  - {id: rec-anthropic, name: Recorded Anthropic, api: anthropic, base_url: "${replayUrl}", api_key: k, pass_through: false, timeouts: ${timeouts}}
  - {id: rec-anthropic-native, name: Recorded Anthropic (pass-through), api: anthropic, base_url: "${replayUrl}", api_key: k, timeouts: ${timeouts}}
  - {id: rec-gemini, name: Recorded Gemini, api: gemini, base_url: "${replayUrl}/v1beta", api_key: k, timeouts: ${timeouts}}
models:
${model('rec/openai', 'rec-openai', 'grok-3-mini')}${model('rec/openai-native', 'rec-openai-native', 'grok-3-mini')}${model('rec/anthropic', 'rec-anthropic', 'claude-sonnet-4-5')}${model('rec/anthropic-native', 'rec-anthropic-native', 'claude-sonnet-4-5')}${model('rec/gemini', 'rec-gemini', 'gemini-3.1-pro-preview')}`;
}
