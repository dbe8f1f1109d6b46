import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * What agent clients (opencode, OpenRouter's AI SDK provider, LangChain) put in a Chat Completions
 * body besides the conversation, sent with the official SDK to a model of each provider protocol:
 * hints and neutral values are never a reason to refuse.
 */
describe('Chat Completions hints from agent clients', () => {
  let gateway: SimulatedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gateway = await startSimulatedGateway();
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => gateway.close());

  const body = (model: string) => ({
    model,
    stream: true as const,
    stream_options: { include_usage: true },
    prompt_cache_key: 'ses_opencode_1',
    prompt_cache_retention: '24h' as const,
    metadata: { session: 'abc' },
    safety_identifier: 'hashed-user',
    service_tier: 'auto' as const,
    store: false,
    verbosity: 'low' as const,
    n: 1,
    logprobs: false,
    top_logprobs: 0,
    presence_penalty: 0,
    frequency_penalty: 0,
    parallel_tool_calls: false,
    messages: [
      { role: 'system' as const, name: 'opencode', content: [{ type: 'text' as const, text: 'You are opencode.', cache_control: { type: 'ephemeral' } }] },
      { role: 'user' as const, name: 'dev', content: [{ type: 'text' as const, text: 'say hi', cache_control: { type: 'ephemeral' } }] },
    ],
  });

  for (const model of ['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model']) {
    it(`streams an answer on ${model}`, async () => {
      const stream = await client.chat.completions.create(body(model) as unknown as OpenAI.ChatCompletionCreateParamsStreaming);
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toContain('say hi');
    });
  }

  it("answers OpenAI's prompt_cache_breakpoint on text and image parts on every protocol, forwarded only to OpenAI's wire", async () => {
    const image = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const breakpoint = { mode: 'explicit' as const };
    for (const [model, protocol] of [['sim/openai-model', 'openai'], ['sim/anthropic-model', 'anthropic'], ['sim/gemini-model', 'gemini']] as const) {
      const completion = await client.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'You are terse.', prompt_cache_breakpoint: breakpoint }] },
          { role: 'user', content: [{ type: 'image_url', image_url: { url: image }, prompt_cache_breakpoint: breakpoint }, { type: 'text', text: 'cache this prefix', prompt_cache_breakpoint: breakpoint }] },
        ],
      });
      expect(completion.choices[0]!.message.content).toContain('cache this prefix');
      // OpenAI's own field reaches an openai-wire provider in the body relayed as sent; no other protocol has it.
      const sent = gateway.simulator.lastRequest(protocol)?.rawBody ?? '';
      expect(sent.split('"prompt_cache_breakpoint"').length - 1).toBe(protocol === 'openai' ? 3 : 0);
    }
    const wrong = await client.chat.completions
      .create({ model: 'sim/openai-model', messages: [{ role: 'user', content: [{ type: 'text', text: 'x', prompt_cache_breakpoint: { mode: 'auto' } }] }] } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .catch((caught: unknown) => caught);
    expect(wrong).toBeInstanceOf(OpenAI.BadRequestError);
    expect((wrong as Error).message).toContain('messages[0].content[0].prompt_cache_breakpoint.mode');
  });

  it('still refuses what cannot be honoured, saying why and what to do', async () => {
    const error = await client.chat.completions
      .create({ model: 'sim/anthropic-model', messages: [{ role: 'user', content: 'x' }], n: 3 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain("'n' is supported only with the value 1; send one request per choice");
  });
});
