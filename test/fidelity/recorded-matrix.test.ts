import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recording, replayCatalogYaml, startReplayProvider, type ReplayProvider } from '../helpers/replay-provider.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Every stored recording of real provider traffic, replayed through the gateway in all three
 * styles, each read by its SDK's own helper (`.stream()` final objects for streams): no helper
 * may reject an answer, and what the provider said (text, reasoning, tool calls) must arrive.
 */
const recordings: Array<{ file: string; model: string; expect?: 'failure' | 'empty' }> = [
  ...['xai-reasoning-usage', 'moonshot-top-level-cached-tokens', 'perplexity-citations', 'deepseek-tool-call', 'groq-reasoning', 'mistral-reasoning', 'mistral-tool-call'].flatMap((name) => [
    { file: `openai/${name}.json`, model: 'rec/openai' },
    ...(name.startsWith('moonshot') ? [] : [{ file: `openai/${name}.txt`, model: 'rec/openai' }]),
  ]),
  ...['alibaba-reasoning', 'alibaba-tool-call', 'azure-deepseek-reasoning', 'deepseek-reasoning', 'perplexity-text', 'xai-tool-call'].flatMap((name) => [
    { file: `openai/${name}.json`, model: 'rec/openai' },
    { file: `openai/${name}.txt`, model: 'rec/openai' },
  ]),
  ...['moonshot-tool-call.json', 'moonshot-reasoning-stream.txt', 'mistral-incremental-tool-call.txt'].map((name) => ({ file: `openai/${name}`, model: 'rec/openai' })),
  ...[
    'recorded-compaction-response.json', 'recorded-compaction-stream.sse', 'recorded-refusal-response.json', 'recorded-refusal-stream.sse',
    'recorded-tool-input-in-block-start.sse', 'recorded-content-in-message-start.sse', 'recorded-redacted-thinking-stream.sse',
    'recorded-thinking-tool-use-response.json', 'recorded-text-response.json', 'recorded-thinking-stream.sse',
    'recorded-web-search-response.json', 'recorded-web-search-stream.sse', 'recorded-duplicate-message-start.sse',
  ].map((name) => ({ file: `anthropic/${name}`, model: 'rec/anthropic' })),
  { file: 'anthropic/recorded-spliced-message-start.sse', model: 'rec/anthropic', expect: 'failure' as const },
  // The recorded answer is an empty text part (the model said nothing after grounding).
  { file: 'gemini/tool-use-prompt-usage.json', model: 'rec/gemini', expect: 'empty' as const },
  ...['stream-partial-args.sse', 'stream-partial-args-nested.sse', 'stream-tool-use-prompt-usage.sse'].map((name) => ({ file: `gemini/${name}`, model: 'rec/gemini' })),
  { file: 'gemini/rate-limit-retry-info.json', model: 'rec/gemini', expect: 'failure' as const },
];

let replay: ReplayProvider;
let gateway: SimulatedGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  replay = await startReplayProvider();
  gateway = await startSimulatedGateway({ catalogYaml: () => replayCatalogYaml(replay.url), credits: 1000 });
  openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await replay?.close();
});

/** What a client got: its text, reasoning and tool calls, style-neutral. */
interface Seen {
  text: string;
  reasoning: boolean;
  toolCalls: string[];
}

const styles: Record<string, (model: string, stream: boolean) => Promise<Seen>> = {
  async chat(model, stream) {
    const body = { model, messages: [{ role: 'user' as const, content: 'x' }] };
    const completion = stream ? await openai.chat.completions.stream(body).finalChatCompletion() : await openai.chat.completions.create(body);
    const message = completion.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning?: string; reasoning_details?: unknown[] };
    return {
      text: (message.content ?? '') + (message.refusal ?? ''),
      reasoning: Boolean(message.reasoning) || (message.reasoning_details?.length ?? 0) > 0,
      toolCalls: (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call.function.name] : [])),
    };
  },
  async responses(model, stream) {
    const body = { model, input: 'x' };
    const response = stream ? await openai.responses.stream(body).finalResponse() : await openai.responses.create(body);
    // The SDK hands over a failed response rather than throwing; for the client it is a failure.
    if (response.status === 'failed') throw new Error(`response failed: ${response.error?.message}`);
    return {
      text: response.output.flatMap((item) => (item.type === 'message' ? item.content : [])).map((part) => (part.type === 'output_text' ? part.text : part.refusal)).join(''),
      reasoning: response.output.some((item) => item.type === 'reasoning'),
      toolCalls: response.output.flatMap((item) => (item.type === 'function_call' ? [item.name] : [])),
    };
  },
  async messages(model, stream) {
    const body = { model, max_tokens: 4096, messages: [{ role: 'user' as const, content: 'x' }] };
    const message = stream ? await anthropic.messages.stream(body).finalMessage() : await anthropic.messages.create(body);
    // A refusal's explanation is in `stop_details` in this style.
    const details = (message as unknown as { stop_details?: { explanation?: string } | null }).stop_details;
    return {
      text: message.content.map((block) => (block.type === 'text' ? block.text : '')).join('') + (details?.explanation ?? ''),
      reasoning: message.content.some((block) => block.type === 'thinking' || block.type === 'redacted_thinking'),
      toolCalls: message.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : [])),
    };
  },
};

describe.each(recordings)('$file', ({ file, model, expect: outcome }) => {
  const stream = !file.endsWith('.json');
  let reference: Seen | undefined;

  it.each(Object.keys(styles))('reaches a %s client', async (style) => {
    replay.play(recording(file, file.includes('rate-limit') ? 429 : 200));
    const call = styles[style]!(model, stream);
    if (outcome === 'failure') {
      await expect(call).rejects.toThrow();
      return;
    }
    const seen = await call;
    if (outcome !== 'empty') expect(seen.text.length + seen.toolCalls.length).toBeGreaterThan(0);
    // Every style sees the same answer.
    reference ??= seen;
    expect(seen.text.replace(/\s+/g, ' ')).toBe(reference.text.replace(/\s+/g, ' '));
    expect(seen.toolCalls).toEqual(reference.toolCalls);
    expect(seen.reasoning).toBe(reference.reasoning);
  });
});
