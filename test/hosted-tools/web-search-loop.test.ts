import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { measureCharge } from '../helpers/measure-charge.js';
import type { FakeSearchBackend } from '../helpers/start-fake-search-backend.js';
import { searxngWebSearch, useWebSearchGateway } from '../helpers/use-web-search-gateway.js';

// Acceptance of issue 21: models whose endpoints have no search of their own search through the
// gateway's configured backend (a local SearXNG speaking its JSON API), cite what it found, and
// are charged every turn's tokens plus one search; an outage still gives an answer, uncharged.
const pricePerSearch = 4_000_000n; // 0.004 USD
const searchedUrls = ['https://example.org/switchyard', 'https://docs.example.net/routing'];

let searxng: FakeSearchBackend;
let gateway: SimulatedGateway;
let openai: OpenAI;
let anthropic: Anthropic;
useWebSearchGateway({ pricePerSearch, timeoutMs: 500, webFetch: { maxBytes: 200_000 } }, (started) => ({ searxng, gateway, openai, anthropic } = started));

const charged = (run: () => Promise<unknown>) => measureCharge(gateway, run);

const usd = (nano: bigint) => Number(nano) / 1e9;

describe('gateway-run web search (hosted_tools.web_search)', () => {
  it('Responses web_search on an anthropic-wire model: one search, web_search_call item, url_citation annotations, tokens + one search charged', async () => {
    let response!: OpenAI.Responses.Response;
    const cost = await charged(async () => {
      response = await openai.responses.create({ model: 'sim/anthropic-model', input: 'What is Switchyard?', tools: [{ type: 'web_search' }] });
    });
    expect(searxng.searches).toHaveLength(1);
    expect(response.output.map((item) => item.type)).toEqual(['web_search_call', 'message']);
    const call = response.output[0] as OpenAI.Responses.ResponseFunctionWebSearch;
    expect(call.status).toBe('completed');
    expect(call.action).toMatchObject({ type: 'search', query: searxng.searches[0].url.searchParams.get('q') });
    const message = response.output[1] as OpenAI.Responses.ResponseOutputMessage;
    const text = message.content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.text).toContain('https://example.org/switchyard');
    expect(text.annotations.map((annotation) => (annotation as { url: string }).url)).toEqual(searchedUrls);
    expect(cost).toBeGreaterThan(pricePerSearch);
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
    expect((response.usage as unknown as { server_tool_use: unknown }).server_tool_use).toEqual({ web_search_requests: 1 });
    expect((response.usage as unknown as { cost: number }).cost).toBeCloseTo(usd(cost), 9);
  });

  it('Messages web_search_20250305 on an openai-wire model: server_tool_use + web_search_tool_result, cited text, usage.server_tool_use, tokens + one search charged', async () => {
    let message!: Anthropic.Message;
    const cost = await charged(async () => {
      message = await anthropic.messages.create({
        model: 'sim/openai-model',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'What is Switchyard?' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      });
    });
    expect(searxng.searches).toHaveLength(1);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    const [use, result, text] = message.content as [Anthropic.ServerToolUseBlock, Anthropic.WebSearchToolResultBlock, Anthropic.TextBlock];
    expect(use).toMatchObject({ name: 'web_search', input: { query: searxng.searches[0].url.searchParams.get('q') } });
    expect(result.tool_use_id).toBe(use.id);
    expect((result.content as Anthropic.WebSearchResultBlock[]).map((entry) => entry.url)).toEqual(searchedUrls);
    expect(text.citations?.map((citation) => (citation as { url: string }).url)).toEqual(searchedUrls);
    expect(message.usage.server_tool_use?.web_search_requests).toBe(1);
    expect(cost).toBeGreaterThan(pricePerSearch);
    expect((message.usage as unknown as { cost: number }).cost).toBeCloseTo(usd(cost), 9);
    // The request log shows the charge split: every turn's tokens, and the one search.
    const logged = (await (await fetch(`${gateway.url}/v1/requests/${message.id}`, { headers: { authorization: `Bearer ${gateway.key}` } })).json()) as {
      data: { cost: number; usage: { prompt_tokens: number }; cost_breakdown: { tokens: number; web_search: { requests: number; cost: number } } };
    };
    expect(logged.data.cost).toBeCloseTo(usd(cost), 9);
    expect(logged.data.usage.prompt_tokens).toBe(message.usage.input_tokens);
    expect(logged.data.cost_breakdown).toEqual({ tokens: usd(cost - pricePerSearch), web_search: { requests: 1, cost: usd(pricePerSearch) } });
  });

  it('a backend outage: the model is told, still answers, and no search is charged', async () => {
    searxng.mode = 'down';
    let message!: Anthropic.Message;
    const cost = await charged(async () => {
      message = await anthropic.messages.create({
        model: 'sim/openai-model',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'What is Switchyard?' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      });
    });
    expect(searxng.searches).toHaveLength(1);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect((message.content[1] as Anthropic.WebSearchToolResultBlock).content).toMatchObject({ type: 'web_search_tool_result_error', error_code: 'unavailable' });
    expect((message.content[2] as Anthropic.TextBlock).text).toContain('search failed');
    expect(message.usage.server_tool_use?.web_search_requests).toBe(0);
    expect(cost).toBeGreaterThan(0n);
    expect(cost).toBeLessThan(pricePerSearch);
  });

  it('streamed Responses: web_search_call events before the message, annotations, the same charge', async () => {
    const types: string[] = [];
    let final!: OpenAI.Responses.Response;
    const cost = await charged(async () => {
      const stream = await openai.responses.create({ model: 'sim/anthropic-model', input: 'What is Switchyard?', tools: [{ type: 'web_search' }], stream: true });
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.completed') final = event.response;
      }
    });
    expect(searxng.searches).toHaveLength(1);
    const searchEvents = ['response.output_item.added', 'response.web_search_call.in_progress', 'response.web_search_call.searching', 'response.web_search_call.completed', 'response.output_item.done'];
    expect(types.slice(2, 7)).toEqual(searchEvents);
    expect(types.indexOf('response.output_text.delta')).toBeGreaterThan(types.indexOf('response.web_search_call.completed'));
    expect(types).toContain('response.output_text.annotation.added');
    expect(final.output.map((item) => item.type)).toEqual(['web_search_call', 'message']);
    const text = (final.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.annotations.map((annotation) => (annotation as { url: string }).url)).toEqual(searchedUrls);
    expect(cost).toBeGreaterThan(pricePerSearch);
    expect((final.usage as unknown as { cost: number }).cost).toBeCloseTo(usd(cost), 9);
  });

  it('streamed Messages: server_tool_use and its result blocks before the cited text, the same charge', async () => {
    let message!: Anthropic.Message;
    const cost = await charged(async () => {
      const stream = anthropic.messages.stream({
        model: 'sim/openai-model',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'What is Switchyard?' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      });
      message = await stream.finalMessage();
    });
    expect(searxng.searches).toHaveLength(1);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    const [use, result, text] = message.content as [Anthropic.ServerToolUseBlock, Anthropic.WebSearchToolResultBlock, Anthropic.TextBlock];
    expect(use.input).toEqual({ query: searxng.searches[0].url.searchParams.get('q') });
    expect((result.content as Anthropic.WebSearchResultBlock[]).map((entry) => entry.url)).toEqual(searchedUrls);
    expect(text.citations?.map((citation) => (citation as { url: string }).url)).toEqual(searchedUrls);
    expect(message.usage.server_tool_use?.web_search_requests).toBe(1);
    expect(cost).toBeGreaterThan(pricePerSearch);
  });

  it('a search that times out is told to the model and not charged, streamed too', async () => {
    searxng.mode = 'hang';
    let final!: OpenAI.Responses.Response;
    const cost = await charged(async () => {
      const stream = await openai.responses.create({ model: 'sim/anthropic-model', input: 'What is Switchyard?', tools: [{ type: 'web_search' }], stream: true });
      for await (const event of stream) if (event.type === 'response.completed') final = event.response;
    });
    expect(final.output.map((item) => item.type)).toEqual(['web_search_call', 'message']);
    expect(final.output[0]).toMatchObject({ type: 'web_search_call', status: 'failed' });
    const text = (final.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.text).toContain('timed out');
    expect(text.annotations).toEqual([]);
    expect(cost).toBeLessThan(pricePerSearch);
  });

  it('a client that leaves while the search runs ends the search there, not at its timeout, and nothing stays reserved', async () => {
    searxng.mode = 'hang';
    const client = new AbortController();
    const pending = openai.responses.create({ model: 'sim/anthropic-model', input: 'What is Switchyard?', tools: [{ type: 'web_search' }] }, { signal: client.signal, maxRetries: 0 });
    await vi.waitFor(() => expect(searxng.searches).toHaveLength(1));
    const leftAt = performance.now();
    client.abort();
    await expect(pending).rejects.toThrow();
    await vi.waitFor(() => expect(searxng.searches[0].closedAt).toBeDefined());
    // The search's own timeout is 500 ms: closing well before it means the client's leaving reached it.
    expect(searxng.searches[0].closedAt! - leftAt).toBeLessThan(250);
    await vi.waitFor(async () => expect((await readAccountMoney(gateway)).reserved).toBe(0n));
  });

  it('a model whose endpoint has its own search keeps it: the gateway runs none', async () => {
    const native = await startSimulatedGateway({
      configure: (config) => {
        config.hostedTools = { webSearch: searxngWebSearch(searxng, pricePerSearch, 500) };
        for (const endpoint of config.models.find((model) => model.id === 'sim/openai-model')!.endpoints) endpoint.supportedParameters.push('web_search');
      },
    });
    try {
      const client = new OpenAI({ apiKey: native.key, baseURL: `${native.url}/v1` });
      const response = await client.responses.create({ model: 'sim/openai-model', input: 'What is Switchyard?', tools: [{ type: 'web_search' }] });
      expect(searxng.searches).toHaveLength(0);
      expect(response.output.map((item) => item.type)).not.toContain('web_search_call');
    } finally {
      await native.close();
    }
  });

  it("Chat Completions: OpenRouter's web plugin and the :online suffix search through the gateway, with url_citation annotations", async () => {
    const viaPlugin = await openai.chat.completions.create({
      model: 'sim/anthropic-model',
      messages: [{ role: 'user', content: 'What is Switchyard?' }],
      plugins: [{ id: 'web' }],
    } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
    const online = await openai.chat.completions.create({ model: 'sim/gemini-model:online', messages: [{ role: 'user', content: 'What is Switchyard?' }] });
    expect(searxng.searches).toHaveLength(2);
    for (const completion of [viaPlugin, online]) {
      expect((completion.usage as unknown as { server_tool_use: unknown }).server_tool_use).toEqual({ web_search_requests: 1 });
      const annotations = completion.choices[0].message.annotations ?? [];
      expect(annotations.map((annotation) => annotation.url_citation.url)).toEqual(searchedUrls);
      expect(completion.choices[0].message.tool_calls).toBeUndefined();
    }
    expect(online.model).toBe('sim/gemini-model');
    // Streamed: the annotations arrive in the content deltas, the usage in the last chunk.
    const annotations: string[] = [];
    let usage: unknown;
    const stream = await openai.chat.completions.create({ model: 'sim/anthropic-model:online', messages: [{ role: 'user', content: 'What is Switchyard?' }], stream: true, stream_options: { include_usage: true } });
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { annotations?: Array<{ url_citation: { url: string } }> } | undefined;
      for (const annotation of delta?.annotations ?? []) annotations.push(annotation.url_citation.url);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(annotations).toEqual(searchedUrls);
    expect((usage as { server_tool_use: unknown }).server_tool_use).toEqual({ web_search_requests: 1 });
  });

  it('web fetch (Messages web_fetch tool) refuses a private address: the model is told, the client sees web_fetch_tool_result with an error', async () => {
    const message = await anthropic.messages.create({
      model: 'sim/openai-model',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Read the admin page [[sim-call:web_fetch {"url":"https://127.0.0.1/admin"}]]' }],
      tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' } as unknown as Anthropic.ToolUnion],
    });
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_fetch_tool_result', 'text']);
    expect(message.content[0]).toMatchObject({ name: 'web_fetch', input: { url: 'https://127.0.0.1/admin' } });
    expect(message.content[1]).toMatchObject({ content: { type: 'web_fetch_tool_error', error_code: 'url_not_accessible' } });
    expect((message.content[2] as Anthropic.TextBlock).text).toContain('could not be fetched');
    expect(searxng.searches).toHaveLength(0);
  });

  it('Claude Code’s next turn sends the server tool blocks and cited text back: accepted, and the conversation goes on', async () => {
    const first = await anthropic.messages.create({
      model: 'sim/openai-model',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'What is Switchyard?' }],
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
    });
    const second = await anthropic.messages.create({
      model: 'sim/openai-model',
      max_tokens: 200,
      messages: [
        { role: 'user', content: 'What is Switchyard?' },
        { role: 'assistant', content: first.content as unknown as Anthropic.ContentBlockParam[] },
        { role: 'user', content: 'Thanks [[sim-text:you are welcome]]' },
      ],
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
    });
    expect(second.content.map((block) => block.type)).toEqual(['text']);
    expect((second.content[0] as Anthropic.TextBlock).text).toContain('you are welcome');
    expect(searxng.searches).toHaveLength(1);
  });
});
