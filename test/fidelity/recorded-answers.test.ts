import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { readSseEvents } from '../helpers/read-sse.js';
import { recording, type ReplayProvider } from '../helpers/replay-provider.js';
import { sendJson, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { useReplayGateway } from '../helpers/use-replay-gateway.js';

/**
 * Recordings of real provider traffic (see each provider's __fixtures__/SOURCES.md) replayed
 * through the gateway to the official SDKs and their stream helpers: what the provider said must
 * reach the client, in every style.
 */
let replay: ReplayProvider;
let gateway: SimulatedGateway;
let openai: OpenAI;
let anthropic: Anthropic;

useReplayGateway({}, (started) => ({ replay, gateway, openai, anthropic } = started));

const user = (text: string) => [{ role: 'user' as const, content: text }];

describe('usage as providers report it', () => {
  it('xAI: reasoning counted outside completion_tokens is billed as output', async () => {
    replay.play(recording('openai/xai-reasoning-usage.json'));
    const completion = await openai.chat.completions.create({ model: 'rec/openai', messages: user('Say a single word.') });
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 229, total_tokens: 241, completion_tokens_details: { reasoning_tokens: 228 } });
    // 12 prompt × $1/M + 229 output × $2/M.
    expect((completion.usage as unknown as { cost: number }).cost).toBeCloseTo((12 * 1 + 229 * 2) / 1e6, 12);
  });

  it('Anthropic: a Messages stream starts with the input count the provider sent', async () => {
    replay.play(recording('anthropic/recorded-redacted-thinking-stream.sse'));
    const stream = anthropic.messages.stream({ model: 'rec/anthropic', max_tokens: 4096, messages: user('hi') });
    let startUsage: Anthropic.Usage | undefined;
    stream.on('streamEvent', (event) => {
      if (event.type === 'message_start') startUsage = event.message.usage;
    });
    const message = await stream.finalMessage();
    expect(startUsage?.input_tokens).toBe(92);
    expect(message.usage.input_tokens).toBe(92);
    expect(message.usage.output_tokens).toBe(189);
  });

  it('Gemini: a Messages stream starts with the input count the provider sent in its first chunk', async () => {
    replay.play(recording('gemini/stream-tool-use-prompt-usage.sse'));
    const stream = anthropic.messages.stream({ model: 'rec/gemini', max_tokens: 1024, messages: user('date?') });
    let startUsage: Anthropic.Usage | undefined;
    stream.on('streamEvent', (event) => {
      // A copy: the SDK keeps updating the snapshot it started from.
      if (event.type === 'message_start') startUsage = { ...event.message.usage };
    });
    await stream.finalMessage();
    // 17 prompt + 308 tool-use prompt tokens, as the first chunk counts them; no output yet.
    expect(startUsage).toMatchObject({ input_tokens: 325, output_tokens: 0 });
  });

  it('Gemini: the tool-use prompt of a search-grounded answer is billed as input', async () => {
    replay.play(recording('gemini/stream-tool-use-prompt-usage.sse'));
    const message = await anthropic.messages.stream({ model: 'rec/gemini', max_tokens: 1024, messages: user('date?') }).finalMessage();
    expect(message.usage).toMatchObject({ input_tokens: 325, output_tokens: 370 });
  });

  it('Anthropic: compaction passes are all billed', async () => {
    replay.play(recording('anthropic/recorded-compaction-response.json'));
    const message = await anthropic.messages.create({ model: 'rec/anthropic', max_tokens: 4096, messages: user('continue') });
    expect(message.usage).toMatchObject({ input_tokens: 61067, output_tokens: 1912 });
  });
});

describe('Anthropic stream shapes', () => {
  it('streamed redacted_thinking reaches Messages, Chat Completions and Responses clients', async () => {
    replay.play(recording('anthropic/recorded-redacted-thinking-stream.sse'));
    const message = await anthropic.messages.stream({ model: 'rec/anthropic', max_tokens: 4096, messages: user('hi') }).finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(['redacted_thinking', 'redacted_thinking', 'text']);
    expect((message.content[0] as Anthropic.RedactedThinkingBlock).data).toMatch(/^EqkECkYIBxgCKkA8/);

    replay.play(recording('anthropic/recorded-redacted-thinking-stream.sse'));
    const chat = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'rec/anthropic', messages: user('hi'), stream: true });
    const details = (await readSseEvents(chat))
      .filter((event) => event.data !== '[DONE]')
      .flatMap((event) => (JSON.parse(event.data) as { choices: Array<{ delta: { reasoning_details?: Array<{ type: string; data?: string }> } }> }).choices)
      .flatMap((choice) => choice.delta.reasoning_details ?? []);
    expect(details.map((detail) => detail.type)).toEqual(['reasoning.encrypted', 'reasoning.encrypted']);

    replay.play(recording('anthropic/recorded-redacted-thinking-stream.sse'));
    const response = await openai.responses.stream({ model: 'rec/anthropic', input: 'hi' }).finalResponse();
    const reasoning = response.output.filter((item): item is OpenAI.Responses.ResponseReasoningItem => item.type === 'reasoning');
    expect(reasoning).toHaveLength(2);
    expect(reasoning[0]!.encrypted_content).toContain('EqkECkYIBxgCKkA8');
    expect(response.output_text).toMatch(/^I notice that you've sent what/);
  });

  it('redacted thinking a client sends back reaches Anthropic as redacted_thinking (Responses and Chat)', async () => {
    replay.play(recording('anthropic/recorded-redacted-thinking-stream.sse'), recording('anthropic/recorded-text-response.json'));
    const first = await openai.responses.stream({ model: 'rec/anthropic', input: 'hi' }).finalResponse();
    await openai.responses.create({
      model: 'rec/anthropic',
      input: [{ role: 'user', content: 'hi' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'and now?' }],
    });
    const sentBack = (body: Record<string, unknown>) =>
      (body.messages as Array<{ role: string; content: Array<{ type: string; data?: string }> }>).find((message) => message.role === 'assistant')!.content;
    expect(sentBack(replay.requests[1]!.body).map((block) => block.type)).toEqual(['redacted_thinking', 'redacted_thinking', 'text']);
    expect(sentBack(replay.requests[1]!.body)[0]!.data).toMatch(/^EqkECkYIBxgCKkA8/);

    // A Chat client accumulating the stream as OpenRouter's clients do: content joined, reasoning_details concatenated.
    replay.play(recording('anthropic/recorded-redacted-thinking-stream.sse'), recording('anthropic/recorded-text-response.json'));
    const streamed = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'rec/anthropic', messages: user('hi'), stream: true });
    const deltas = (await readSseEvents(streamed))
      .filter((event) => event.data !== '[DONE]')
      .flatMap((event) => (JSON.parse(event.data) as { choices: Array<{ delta: { content?: string; reasoning_details?: unknown[] } }> }).choices)
      .map((choice) => choice.delta);
    const assistant = { role: 'assistant', content: deltas.map((delta) => delta.content ?? '').join(''), reasoning_details: deltas.flatMap((delta) => delta.reasoning_details ?? []) };
    await openai.chat.completions.create({
      model: 'rec/anthropic',
      messages: [...user('hi'), assistant as OpenAI.ChatCompletionMessageParam, ...user('and now?')],
    });
    expect(sentBack(replay.requests[3]!.body).map((block) => block.type)).toEqual(['redacted_thinking', 'redacted_thinking', 'text']);
  });

  it('content and stop reason inside message_start reach the client as a tool call with its input', async () => {
    replay.play(recording('anthropic/recorded-content-in-message-start.sse'));
    const message = await anthropic.messages.stream({ model: 'rec/anthropic', max_tokens: 1024, messages: user('roll') }).finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([{ type: 'tool_use', id: 'toolu_015dGLMbwBKv1ZRQr6KdJzeH', name: 'rollDie', input: { player: 'player2' } }]);

    replay.play(recording('anthropic/recorded-content-in-message-start.sse'));
    const completion = await openai.chat.completions.stream({ model: 'rec/anthropic', messages: user('roll') }).finalChatCompletion();
    expect(completion.choices[0]!.message.tool_calls).toMatchObject([{ function: { name: 'rollDie', arguments: '{"player":"player2"}' } }]);
  });

  it('through the native pass-through, the same recording reaches a Messages client as Anthropic sent it, with the gateway id, model and cost', async () => {
    replay.play(recording('anthropic/recorded-content-in-message-start.sse'));
    const stream = anthropic.messages.stream({ model: 'rec/anthropic-native', max_tokens: 1024, messages: user('roll') });
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    // Anthropic's own `caller` (a tool called from code execution) survives: nothing re-encodes the blocks.
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'toolu_015dGLMbwBKv1ZRQr6KdJzeH', name: 'rollDie', input: { player: 'player2' }, caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK' } },
    ]);
    expect(message.model).toBe('rec/anthropic-native');
    expect(message.id).toBe((await stream.withResponse()).response.headers.get('x-request-id'));

    // The SDK keeps only Anthropic's own usage fields of `message_delta`; the cost is on the wire.
    replay.play(recording('anthropic/recorded-content-in-message-start.sse'));
    const raw = await sendJson(gateway, gateway.key, 'POST', '/v1/messages', { model: 'rec/anthropic-native', max_tokens: 1024, messages: user('roll'), stream: true });
    const events = await readSseEvents(raw);
    const delta = events.map((event) => JSON.parse(event.data) as { type: string; delta?: { stop_reason?: string }; usage?: { cost?: number } }).find((data) => data.type === 'message_delta');
    expect(delta?.delta?.stop_reason).toBe('tool_use');
    expect(delta?.usage).toHaveProperty('cost');
  });

  it("a tool's whole input in content_block_start reaches the client", async () => {
    replay.play(recording('anthropic/recorded-tool-input-in-block-start.sse'));
    const completion = await openai.chat.completions.stream({ model: 'rec/anthropic', messages: user('play') }).finalChatCompletion();
    const call = completion.choices[0]!.message.tool_calls?.find((entry) => entry.type === 'function' && entry.function.name === 'rollDie');
    expect(call && call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ player: 'player1' });
  });

  it('a second message_start mid-stream fails the stream for the client', async () => {
    replay.play(recording('anthropic/recorded-spliced-message-start.sse'));
    await expect(anthropic.messages.stream({ model: 'rec/anthropic', max_tokens: 1024, messages: user('x') }).finalMessage()).rejects.toThrow(
      /second message_start/,
    );
  });

  it('the same message_start sent twice is folded, relayed and translated: one message_start, the whole answer', async () => {
    for (const model of ['rec/anthropic', 'rec/anthropic-native']) {
      replay.play(recording('anthropic/recorded-thinking-stream.sse'), recording('anthropic/recorded-duplicate-message-start.sse'));
      const once = await anthropic.messages.stream({ model, max_tokens: 4096, messages: user('x') }).finalMessage();
      const twice = await anthropic.messages.stream({ model, max_tokens: 4096, messages: user('x') }).finalMessage();
      expect({ ...twice, id: once.id }).toEqual(once);

      replay.play(recording('anthropic/recorded-duplicate-message-start.sse'));
      const raw = await sendJson(gateway, gateway.key, 'POST', '/v1/messages', { model, max_tokens: 4096, messages: user('x'), stream: true });
      const events = (await readSseEvents(raw)).map((event) => (JSON.parse(event.data) as { type: string }).type);
      expect(events.filter((type) => type === 'message_start')).toHaveLength(1);
      expect(events.at(-1)).toBe('message_stop');
    }
  });

  it("a refusal's stop_details reach Messages clients, and its explanation Chat clients", async () => {
    const explanation = "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.";
    replay.play(recording('anthropic/recorded-refusal-stream.sse'));
    const streamed = await anthropic.messages.stream({ model: 'rec/anthropic', max_tokens: 1024, messages: user('x') }).finalMessage();
    expect(streamed.stop_reason).toBe('refusal');
    expect((streamed as unknown as { stop_details: unknown }).stop_details).toMatchObject({ type: 'refusal', category: 'cyber', explanation });

    replay.play(recording('anthropic/recorded-refusal-response.json'));
    const message = await anthropic.messages.create({ model: 'rec/anthropic', max_tokens: 1024, messages: user('x') });
    expect((message as unknown as { stop_details: unknown }).stop_details).toMatchObject({ type: 'refusal', category: 'cyber', explanation });

    replay.play(recording('anthropic/recorded-refusal-response.json'));
    const completion = await openai.chat.completions.create({ model: 'rec/anthropic', messages: user('x') });
    expect(completion.choices[0]!.finish_reason).toBe('content_filter');
    expect(completion.choices[0]!.message.refusal).toBe(explanation);

    const refusalOf = (response: OpenAI.Responses.Response) =>
      response.output.flatMap((item) => (item.type === 'message' ? item.content : [])).flatMap((part) => (part.type === 'refusal' ? [part.refusal] : []));
    replay.play(recording('anthropic/recorded-refusal-response.json'));
    const response = await openai.responses.create({ model: 'rec/anthropic', input: 'x' });
    expect(response.incomplete_details?.reason).toBe('content_filter');
    expect(refusalOf(response)).toEqual([explanation]);
    replay.play(recording('anthropic/recorded-refusal-stream.sse'));
    expect(refusalOf(await openai.responses.stream({ model: 'rec/anthropic', input: 'x' }).finalResponse())).toEqual([explanation]);
  });
});

describe('Gemini', () => {
  it('streamed partialArgs reach the client as one named call per function call', async () => {
    replay.play(recording('gemini/stream-partial-args.sse'));
    const completion = await openai.chat.completions.stream({ model: 'rec/gemini', messages: user('weather?') }).finalChatCompletion();
    const calls = completion.choices[0]!.message.tool_calls ?? [];
    expect(calls.map((call) => (call.type === 'function' ? [call.function.name, JSON.parse(call.function.arguments)] : []))).toEqual([
      ['getWeather', { location: 'Boston' }],
      ['getWeather', { location: 'San Francisco' }],
    ]);

    replay.play(recording('gemini/stream-partial-args.sse'));
    const message = await anthropic.messages.stream({ model: 'rec/gemini', max_tokens: 1024, messages: user('weather?') }).finalMessage();
    expect(message.content.filter((block) => block.type === 'tool_use').map((block) => block.type === 'tool_use' && block.input)).toEqual([
      { location: 'Boston' },
      { location: 'San Francisco' },
    ]);
  });

  it("a 429's retryDelay becomes Retry-After", async () => {
    replay.play(recording('gemini/rate-limit-retry-info.json', 429));
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'rec/gemini', messages: user('x') });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('35');
  });
});

describe('reasoning signatures in the Chat Completions style (OpenRouter reasoning_details)', () => {
  it('a tool loop that sends the assistant message back as received keeps the signed thinking', async () => {
    // OpenRouter's documented loop: append `choices[0].message` verbatim. (The openai SDK's
    // runTools rebuilds assistant messages from the standard fields only, so no gateway can
    // carry reasoning through it.)
    const recorded = JSON.parse(recording('anthropic/recorded-thinking-tool-use-response.json').body) as { content: Array<{ thinking?: string; signature?: string }> };
    replay.play(recording('anthropic/recorded-thinking-tool-use-response.json'), recording('anthropic/recorded-text-response.json'));
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: { name: 'final_result', parameters: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' }, age: { type: 'integer' } } } },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = user('Generate a random user for me.');
    const first = await openai.chat.completions.create({ model: 'rec/anthropic', messages, tools });
    const assistantMessage = first.choices[0]!.message;
    expect((assistantMessage as unknown as { reasoning_details: unknown[] }).reasoning_details).toHaveLength(1);
    const call = assistantMessage.tool_calls![0]!;
    messages.push(assistantMessage as OpenAI.ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: 'saved' });
    const second = await openai.chat.completions.create({ model: 'rec/anthropic', messages, tools });
    expect(second.choices[0]!.message.content).toMatch(/^Hello! I'm doing well/);
    // The second upstream call carries the first answer's thinking with its original signature.
    const assistant = (replay.requests[1]!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>).find((message) => message.role === 'assistant');
    expect(assistant?.content[0]).toEqual({ type: 'thinking', thinking: recorded.content[0]!.thinking, signature: recorded.content[0]!.signature });
  });

  it('a streamed signature arrives in reasoning_details', async () => {
    replay.play(recording('anthropic/recorded-thinking-stream.sse'));
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'rec/anthropic', messages: user('925 / 5?'), stream: true });
    const details = (await readSseEvents(response))
      .filter((event) => event.data !== '[DONE]')
      .flatMap((event) => (JSON.parse(event.data) as { choices: Array<{ delta: { reasoning_details?: Array<{ text?: string; signature?: string; index: number }> } }> }).choices)
      .flatMap((choice) => choice.delta.reasoning_details ?? []);
    // Merged by index as OpenRouter clients do: one block, its whole text and its signature.
    expect(new Set(details.map((detail) => detail.index))).toEqual(new Set([0]));
    expect(details.map((detail) => detail.text ?? '').join('')).toBe('The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185');
    expect(details.find((detail) => detail.signature)?.signature).toMatch(/^anthropic:EvQBCkYICxgCKkAxhD4N/);
  });
});

describe('citations and annotations', () => {
  it('Anthropic web-search citations reach every style, spanning the text they cite', async () => {
    replay.play(recording('anthropic/recorded-web-search-response.json'));
    const completion = await openai.chat.completions.create({ model: 'rec/anthropic', messages: user('tech news?') });
    const message = completion.choices[0]!.message;
    // 3 citations in the text and the 8 other pages the searches found.
    expect(message.annotations).toHaveLength(11);
    const first = message.annotations![0]!.url_citation;
    expect(first.url).toBe('https://acecomments.mu.nu/?post=411647');
    expect(message.content!.slice(first.start_index, first.end_index).length).toBeGreaterThan(0);

    replay.play(recording('anthropic/recorded-web-search-stream.sse'));
    const streamed = await openai.chat.completions.stream({ model: 'rec/anthropic', messages: user('tech news?') }).finalChatCompletion();
    const annotations = streamed.choices[0]!.message.annotations ?? [];
    expect(annotations).toHaveLength(20);
    for (const annotation of annotations) {
      expect(annotation.url_citation.end_index).toBeGreaterThan(annotation.url_citation.start_index);
      expect(annotation.url_citation.end_index).toBeLessThanOrEqual(streamed.choices[0]!.message.content!.length);
    }

    replay.play(recording('anthropic/recorded-web-search-stream.sse'));
    const response = await openai.responses.stream({ model: 'rec/anthropic', input: 'tech news?' }).finalResponse();
    const outputText = response.output.flatMap((item) => (item.type === 'message' ? item.content : [])).flatMap((part) => (part.type === 'output_text' ? [part] : []));
    expect(outputText.flatMap((part) => part.annotations)).toHaveLength(20);
    expect(outputText.flatMap((part) => part.annotations)[0]).toMatchObject({ type: 'url_citation', url: expect.stringMatching(/^https:\/\/www\.apple\.com\//) });

    replay.play(recording('anthropic/recorded-web-search-stream.sse'));
    const anthropicMessage = await anthropic.messages.stream({ model: 'rec/anthropic', max_tokens: 4096, messages: user('tech news?') }).finalMessage();
    const citations = anthropicMessage.content.flatMap((block) => (block.type === 'text' ? (block.citations ?? []) : []));
    expect(citations).toHaveLength(20);
    expect(citations[0]).toMatchObject({ type: 'web_search_result_location', encrypted_index: expect.stringMatching(/^Eo8B/) });
  });

  it("Perplexity's citations reach Chat, Responses and Messages clients", async () => {
    replay.play(recording('openai/perplexity-citations.json'));
    const completion = await openai.chat.completions.create({ model: 'rec/openai', messages: user('population of SF?') });
    expect(completion.choices[0]!.message.annotations?.map((annotation) => annotation.url_citation.url)).toContain('https://en.wikipedia.org/wiki/San_Francisco');

    replay.play(recording('openai/perplexity-citations.txt'));
    const response = await openai.responses.stream({ model: 'rec/openai', input: 'population of SF?' }).finalResponse();
    const annotations = response.output.flatMap((item) => (item.type === 'message' ? item.content : [])).flatMap((part) => (part.type === 'output_text' ? part.annotations : []));
    expect(annotations).toHaveLength(7);

    replay.play(recording('openai/perplexity-citations.txt'));
    const message = await anthropic.messages.stream({ model: 'rec/openai', max_tokens: 1024, messages: user('population of SF?') }).finalMessage();
    expect(message.content.flatMap((block) => (block.type === 'text' ? (block.citations ?? []) : []))).toHaveLength(7);
  });
});

describe('citations and annotations, non-streaming and as stream events', () => {
  const outputTextOf = (response: OpenAI.Responses.Response) =>
    response.output.flatMap((item) => (item.type === 'message' ? item.content : [])).flatMap((part) => (part.type === 'output_text' ? [part] : []));
  const perplexitySources = (JSON.parse(recording('openai/perplexity-citations.json').body) as { citations: string[] }).citations;

  it('Anthropic web-search citations reach non-streaming Responses, Messages and Chat clients on the text they cite', async () => {
    replay.play(recording('anthropic/recorded-web-search-response.json'));
    const response = await openai.responses.create({ model: 'rec/anthropic', input: 'tech news?' });
    const parts = outputTextOf(response);
    expect(parts).toHaveLength(1);
    // The 3 cited spans, then the 8 other pages the searches found (spanning the closing text).
    const annotations = parts[0]!.annotations;
    expect(annotations).toHaveLength(11);
    expect(annotations.every((annotation) => annotation.type === 'url_citation')).toBe(true);
    const first = annotations[0] as OpenAI.Responses.ResponseOutputText.URLCitation;
    expect(first).toMatchObject({ type: 'url_citation', url: 'https://acecomments.mu.nu/?post=411647', title: 'Daily Tech News 26 September 2024' });
    expect(parts[0]!.text.slice(first.start_index, first.end_index)).toMatch(/^Caroline Ellison, Sam Bankman-Fried's right-hand woman/);
    expect((annotations[2] as OpenAI.Responses.ResponseOutputText.URLCitation).url).toBe('https://www.crescendo.ai/news/latest-ai-news-and-updates');
    expect(parts[0]!.text.slice((annotations[2] as OpenAI.Responses.ResponseOutputText.URLCitation).start_index)).toMatch(/^Chinese AI firm DeepSeek/);

    replay.play(recording('anthropic/recorded-web-search-response.json'));
    const message = await anthropic.messages.create({ model: 'rec/anthropic', max_tokens: 4096, messages: user('tech news?') });
    const cited = message.content.flatMap((block) => (block.type === 'text' && block.citations ? [block] : []));
    expect(cited.flatMap((block) => block.citations!)).toHaveLength(11);
    expect(cited[0]!.text).toMatch(/^Caroline Ellison, Sam Bankman-Fried's right-hand woman/);
    expect(cited[0]!.citations).toEqual([
      {
        type: 'web_search_result_location',
        url: 'https://acecomments.mu.nu/?post=411647',
        title: 'Daily Tech News 26 September 2024',
        cited_text: expect.stringMatching(/^Daily Tech News 26 September 2024 · Top Story Caroline Ellison/),
        encrypted_index: expect.stringMatching(/^Eo8B/),
      },
    ]);

    replay.play(recording('anthropic/recorded-web-search-response.json'));
    const completion = await openai.chat.completions.create({ model: 'rec/anthropic', messages: user('tech news?') });
    const chat = completion.choices[0]!.message;
    expect(chat.annotations?.map((annotation) => annotation.url_citation.url)).toEqual(annotations.map((annotation) => (annotation as OpenAI.Responses.ResponseOutputText.URLCitation).url));
    expect(chat.content!.slice(chat.annotations![0]!.url_citation.start_index, chat.annotations![0]!.url_citation.end_index)).toMatch(/^Caroline Ellison/);
  });

  it("Perplexity's citations reach non-streaming Responses, Messages and Chat clients, each spanning the whole answer", async () => {
    expect(perplexitySources).toHaveLength(7);
    replay.play(recording('openai/perplexity-citations.json'));
    const response = await openai.responses.create({ model: 'rec/openai', input: 'population of SF?' });
    const parts = outputTextOf(response);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.annotations).toEqual(perplexitySources.map((url) => ({ type: 'url_citation', url, title: '', start_index: 0, end_index: parts[0]!.text.length })));
    expect(parts[0]!.text).toMatch(/^The most recent estimates for San Francisco's city population/);

    replay.play(recording('openai/perplexity-citations.json'));
    const message = await anthropic.messages.create({ model: 'rec/openai', max_tokens: 1024, messages: user('population of SF?') });
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block] : []));
    expect(text).toHaveLength(1);
    expect(text[0]!.citations?.map((citation) => citation.type === 'web_search_result_location' && citation.url)).toEqual(perplexitySources);

    replay.play(recording('openai/perplexity-citations.json'));
    const completion = await openai.chat.completions.create({ model: 'rec/openai', messages: user('population of SF?') });
    const chat = completion.choices[0]!.message;
    expect(chat.annotations).toEqual(perplexitySources.map((url) => ({ type: 'url_citation', url_citation: { url, title: '', start_index: 0, end_index: chat.content!.length } })));
  });

  it('a streamed Responses answer announces each citation with response.output_text.annotation.added before its item is done', async () => {
    for (const [model, file, count] of [
      ['rec/anthropic', 'anthropic/recorded-web-search-stream.sse', 20],
      ['rec/openai', 'openai/perplexity-citations.txt', 7],
    ] as const) {
      replay.play(recording(file));
      const stream = openai.responses.stream({ model, input: 'x' });
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      stream.on('event', (event) => events.push(event));
      const response = await stream.finalResponse();
      const message = response.output.find((item) => item.type === 'message')!;
      const final = outputTextOf(response)[0]!.annotations;
      expect(final).toHaveLength(count);

      const added = events.filter((event): event is OpenAI.Responses.ResponseOutputTextAnnotationAddedEvent => event.type === 'response.output_text.annotation.added');
      expect(added.map((event) => event.annotation)).toEqual(final);
      expect(added.map((event) => event.annotation_index)).toEqual(final.map((_, index) => index));
      for (const event of added) expect(event).toMatchObject({ item_id: message.id, output_index: response.output.indexOf(message), content_index: 0 });
      const itemDone = events.findIndex((event) => event.type === 'response.output_item.done' && event.item.id === message.id);
      expect(events.indexOf(added.at(-1)!)).toBeLessThan(itemDone);
    }
  });
});

describe("OpenRouter's SDK reads the carried fields with its own schemas", () => {
  it('reasoning_details, a cited answer and a refusal', async () => {
    const { OpenRouter } = await import('@openrouter/sdk');
    const client = new OpenRouter({ apiKey: gateway.key, serverURL: `${gateway.url}/v1`, retryConfig: { strategy: 'none' } });
    const send = async () => {
      const result = await client.chat.send({ chatRequest: { model: 'rec/anthropic', messages: [{ role: 'user', content: 'x' }], stream: false } });
      if (!('choices' in result)) throw new Error('expected a complete chat result');
      return result.choices[0]!;
    };

    replay.play(recording('anthropic/recorded-thinking-tool-use-response.json'));
    const thinking = await send();
    expect(thinking.message.reasoningDetails).toMatchObject([{ type: 'reasoning.text', signature: expect.stringMatching(/^anthropic:EskF/) }]);

    replay.play(recording('anthropic/recorded-redacted-thinking-stream.sse'));
    const stream = await client.chat.send({ chatRequest: { model: 'rec/anthropic', messages: [{ role: 'user', content: 'x' }], stream: true } });
    if ('choices' in stream) throw new Error('expected a stream');
    const details: Array<{ type: string }> = [];
    for await (const chunk of stream) details.push(...((chunk.choices[0]?.delta.reasoningDetails ?? []) as Array<{ type: string }>));
    expect(details.map((detail) => detail.type)).toEqual(['reasoning.encrypted', 'reasoning.encrypted']);

    // Its message type has no `annotations` (the openai SDK reads them, above); the answer must still validate.
    replay.play(recording('anthropic/recorded-web-search-response.json'));
    expect((await send()).message.content).toMatch(/^Let me search for more specific tech news/);

    replay.play(recording('anthropic/recorded-refusal-response.json'));
    const refused = await send();
    expect(refused.message.refusal).toMatch(/^This request triggered restrictions/);
  });
});
