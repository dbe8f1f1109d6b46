import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { readAccountMoney, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { measureCharge } from '../helpers/measure-charge.js';
import type { FakeSearchBackend } from '../helpers/start-fake-search-backend.js';
import { useWebSearchGateway } from '../helpers/use-web-search-gateway.js';

// Issue 46: a streamed request whose hosted tools the gateway runs streams the tool calls'
// progress as the vendors do, while the search runs, not after the whole loop. The search backend
// holds its answer until the test has seen the progress event, so an event that waited for the
// loop would come only after the search had ended.
const pricePerSearch = 4_000_000n;
const searchedUrls = ['https://example.org/switchyard', 'https://docs.example.net/routing'];

let searxng: FakeSearchBackend;
let gateway: SimulatedGateway;
let openai: OpenAI;
let anthropic: Anthropic;
useWebSearchGateway({ pricePerSearch, timeoutMs: 20_000, maxRetries: 0 }, (started) => ({ searxng, gateway, openai, anthropic } = started));

const charged = (run: () => Promise<unknown>) => measureCharge(gateway, run);

/** The search is running (asked for, held, its connection open): then let it answer. */
async function releaseRunningSearch(): Promise<void> {
  await vi.waitFor(() => expect(searxng.searches).toHaveLength(1));
  expect(searxng.searches[0]!.closedAt).toBeUndefined();
  searxng.release();
}

describe('streamed progress of the tool calls the gateway runs', () => {
  it('Responses (responses.stream): web_search_call in_progress and searching while the search runs, completed after; the same charge as unstreamed', async () => {
    const request = { model: 'sim/anthropic-model', input: 'What is Switchyard?', tools: [{ type: 'web_search' as const }] };
    const unstreamed = await charged(() => openai.responses.create(request));
    searxng.searches.length = 0;
    searxng.mode = 'hold';
    const types: string[] = [];
    let final!: OpenAI.Responses.Response;
    const cost = await charged(async () => {
      const stream = openai.responses.stream(request);
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.web_search_call.searching') await releaseRunningSearch();
      }
      final = await stream.finalResponse();
    });
    const searching = types.indexOf('response.web_search_call.searching');
    expect(types.slice(0, searching + 1)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.web_search_call.in_progress', 'response.web_search_call.searching']);
    expect(types.indexOf('response.web_search_call.completed')).toBeLessThan(types.indexOf('response.output_text.delta'));
    expect(final.output.map((item) => item.type)).toEqual(['web_search_call', 'message']);
    expect(final.output[0]).toMatchObject({ type: 'web_search_call', status: 'completed' });
    const text = (final.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.annotations.map((annotation) => (annotation as { url: string }).url)).toEqual(searchedUrls);
    expect(cost).toBe(unstreamed);
    expect(cost).toBeGreaterThan(pricePerSearch);
  });

  it('Messages (messages.stream): the server_tool_use block while the search runs, its web_search_tool_result after; the same charge as unstreamed', async () => {
    const request = { model: 'sim/openai-model', max_tokens: 200, messages: [{ role: 'user' as const, content: 'What is Switchyard?' }], tools: [{ type: 'web_search_20250305' as const, name: 'web_search' as const }] };
    const unstreamed = await charged(() => anthropic.messages.create(request));
    searxng.searches.length = 0;
    searxng.mode = 'hold';
    const blocks: string[] = [];
    let message!: Anthropic.Message;
    const cost = await charged(async () => {
      const stream = anthropic.messages.stream(request);
      for await (const event of stream) {
        if (event.type !== 'content_block_start') continue;
        blocks.push(event.content_block.type);
        if (event.content_block.type === 'server_tool_use') await releaseRunningSearch();
      }
      message = await stream.finalMessage();
    });
    expect(blocks).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect((message.content[0] as Anthropic.ServerToolUseBlock).input).toEqual({ query: searxng.searches[0]!.url.searchParams.get('q') });
    expect((message.content[2] as Anthropic.TextBlock).citations?.map((citation) => (citation as { url: string }).url)).toEqual(searchedUrls);
    expect(message.usage.server_tool_use?.web_search_requests).toBe(1);
    expect(cost).toBe(unstreamed);
  });

  it('Chat Completions (:online): the first chunk arrives while the search runs, the stream parses, the annotations follow', async () => {
    searxng.mode = 'hold';
    const stream = await openai.chat.completions.create({ model: 'sim/anthropic-model:online', messages: [{ role: 'user', content: 'What is Switchyard?' }], stream: true, stream_options: { include_usage: true } });
    let first = true;
    let text = '';
    const annotations: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      if (first) {
        first = false;
        expect(chunk.choices[0]?.delta.role).toBe('assistant');
        await releaseRunningSearch();
      }
      text += chunk.choices[0]?.delta.content ?? '';
      const delta = chunk.choices[0]?.delta as { annotations?: Array<{ url_citation: { url: string } }> } | undefined;
      for (const annotation of delta?.annotations ?? []) annotations.push(annotation.url_citation.url);
      usage = chunk.usage ?? usage;
    }
    expect(text).not.toBe('');
    expect(annotations).toEqual(searchedUrls);
    expect((usage as unknown as { server_tool_use: { web_search_requests: number } }).server_tool_use.web_search_requests).toBe(1);
  });

  it('a client that leaves while the search runs: the search ends there, nothing is charged and nothing stays reserved', async () => {
    searxng.mode = 'hold';
    const before = await readAccountMoney(gateway);
    const client = new AbortController();
    const stream = await openai.responses.create({ model: 'sim/anthropic-model', input: 'What is Switchyard?', tools: [{ type: 'web_search' }], stream: true }, { signal: client.signal });
    const read = (async () => {
      for await (const event of stream) {
        if (event.type !== 'response.web_search_call.searching') continue;
        await vi.waitFor(() => expect(searxng.searches).toHaveLength(1));
        client.abort();
      }
    })();
    // The SDK ends an aborted stream quietly or with an AbortError, as the timing falls; either is the client gone.
    await read.catch((error: unknown) => expect(error).toBeInstanceOf(Error));
    await vi.waitFor(() => expect(searxng.searches[0]!.closedAt).toBeDefined());
    await vi.waitFor(async () => expect((await readAccountMoney(gateway)).reserved).toBe(0n));
    expect((await readAccountMoney(gateway)).usage).toBe(before.usage);
  });
});
