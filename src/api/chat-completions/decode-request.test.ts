import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { catchGatewayError } from '../../errors/__fixtures__/catch-gateway-error.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { decodeChatCompletionsRequest } from './decode-request.js';

const base = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };

function decode(extra: Record<string, unknown>) {
  return decodeChatCompletionsRequest({ ...base, ...extra });
}

/** Runs the decoder and returns the GatewayError it throws. */
function refusal(body: Record<string, unknown>): GatewayError {
  return catchGatewayError(() => decodeChatCompletionsRequest(body));
}

function refusalOf(extra: Record<string, unknown>): GatewayError {
  return refusal({ ...base, ...extra });
}

describe('decodeChatCompletionsRequest: routing and defaults', () => {
  it('decodes the minimal body with no parameters', () => {
    const call = decodeChatCompletionsRequest(base);
    expect(call.route).toEqual({ model: 'openai/gpt-4o-mini', fallbackModels: [], provider: undefined });
    expect(call.request).toEqual({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], stream: false });
    expect(call.parameters).toEqual([]);
  });

  it('passes models and provider through decodeRouteRequest', () => {
    const call = decode({ models: ['a/b', 'c/d'], provider: { order: ['openai'], allow_fallbacks: false } });
    expect(call.route).toEqual({ model: 'openai/gpt-4o-mini', fallbackModels: ['a/b', 'c/d'], provider: { order: ['openai'], allowFallbacks: false } });
  });

  it('requires model and messages', () => {
    expect(refusal({ messages: base.messages })).toMatchObject({ code: 'invalid_request', param: 'model' });
    expect(refusal({ model: 'x/y' })).toMatchObject({ param: 'messages', message: "'messages' is required" });
    expect(refusalOf({ messages: [] }).param).toBe('messages');
  });

  it('reads stream and checks stream_options', () => {
    expect(decode({ stream: true, stream_options: { include_usage: true } }).request.stream).toBe(true);
    expect(decode({ stream: true, stream_options: { include_usage: false, include_obfuscation: false } }).parameters).toEqual([]);
    expect(refusalOf({ stream: 'yes' }).param).toBe('stream');
    expect(refusalOf({ stream_options: { include_usage: true } }).message).toContain("only allowed when 'stream' is true");
    expect(refusalOf({ stream: true, stream_options: { chunk_size: 3 } }).param).toBe('stream_options.chunk_size');
    expect(decode({ usage: { include: true } }).parameters).toEqual([]);
    expect(refusalOf({ usage: { include: 'yes' } }).param).toBe('usage.include');
  });
});

describe('decodeChatCompletionsRequest: parameters', () => {
  it('maps every sampling parameter and records it by canonical name and field', () => {
    const call = decode({
      temperature: 0.7, top_p: 0.9, top_k: 40, frequency_penalty: -0.5, presence_penalty: 1.5, seed: 42,
      stop: ['END', '###'], user: 'user-7', parallel_tool_calls: false, max_completion_tokens: 256,
    });
    expect(call.request).toMatchObject({
      temperature: 0.7, topP: 0.9, topK: 40, frequencyPenalty: -0.5, presencePenalty: 1.5, seed: 42,
      stop: ['END', '###'], user: 'user-7', parallelToolCalls: false, maxTokens: 256,
    });
    // parallel_tool_calls and user are hints: set on the request, never a routing requirement.
    expect(call.parameters).toEqual([
      { name: 'max_tokens', field: 'max_completion_tokens' },
      { name: 'temperature', field: 'temperature' },
      { name: 'top_p', field: 'top_p' },
      { name: 'top_k', field: 'top_k' },
      { name: 'frequency_penalty', field: 'frequency_penalty' },
      { name: 'presence_penalty', field: 'presence_penalty' },
      { name: 'seed', field: 'seed' },
      { name: 'stop', field: 'stop' },
    ]);
  });

  it('treats null as not set', () => {
    const call = decode({ temperature: null, max_tokens: null, stop: null, n: null, logprobs: null, tools: null });
    expect(call.parameters).toEqual([]);
    expect(call.request.temperature).toBeUndefined();
  });

  it('accepts max_tokens under its own name and refuses both names at once', () => {
    expect(decode({ max_tokens: 100 }).parameters).toEqual([{ name: 'max_tokens', field: 'max_tokens' }]);
    expect(decode({ max_tokens: 100 }).request.maxTokens).toBe(100);
    expect(refusalOf({ max_tokens: 100, max_completion_tokens: 100 }).message).toContain("only one of 'max_tokens' and 'max_completion_tokens'");
    expect(refusalOf({ max_tokens: 0 }).message).toBe("'max_tokens' must be an integer at least 1");
    expect(refusalOf({ max_completion_tokens: 1.5 }).param).toBe('max_completion_tokens');
  });

  it('wraps a single stop string', () => {
    expect(decode({ stop: 'END' }).request.stop).toEqual(['END']);
    expect(refusalOf({ stop: [1] }).message).toBe("'stop' must be a string or an array of strings");
  });

  it.each([
    ['temperature', 2.5, "'temperature' must be a number between 0 and 2"],
    ['temperature', '1', "'temperature' must be a number between 0 and 2"],
    ['top_p', 1.1, "'top_p' must be a number between 0 and 1"],
    ['top_k', -1, "'top_k' must be an integer at least 0"],
    ['frequency_penalty', -3, "'frequency_penalty' must be a number between -2 and 2"],
    ['presence_penalty', 2.1, "'presence_penalty' must be a number between -2 and 2"],
    ['seed', 1.5, "'seed' must be an integer"],
    ['user', 7, "'user' must be a string"],
    ['parallel_tool_calls', 'no', "'parallel_tool_calls' must be a boolean"],
  ])('refuses %s = %j', (field, value, message) => {
    expect(refusalOf({ [field]: value })).toMatchObject({ code: 'invalid_request', status: 400, message, param: field });
  });

  it('maps reasoning_effort and OpenRouter reasoning, one at a time', () => {
    expect(decode({ reasoning_effort: 'low' })).toMatchObject({
      request: { reasoning: { effort: 'low' } },
      parameters: [{ name: 'reasoning', field: 'reasoning_effort' }],
    });
    expect(decode({ reasoning: { effort: 'high', max_tokens: 2000 } })).toMatchObject({
      request: { reasoning: { effort: 'high', maxTokens: 2000 } },
      parameters: [{ name: 'reasoning', field: 'reasoning' }],
    });
    expect(refusalOf({ reasoning_effort: 'xhigh' }).message).toBe("'reasoning_effort' must be one of minimal, low, medium, high");
    expect(refusalOf({ reasoning: {} }).message).toBe("'reasoning' must set 'effort', 'max_tokens' or 'enabled'");
    expect(refusalOf({ reasoning: { exclude: true } }).param).toBe('reasoning.exclude');
    expect(refusalOf({ reasoning: { effort: 'low' }, reasoning_effort: 'low' }).param).toBe('reasoning');
  });

  it('decodes every response_format', () => {
    expect(decode({ response_format: { type: 'text' } }).request.responseFormat).toEqual({ type: 'text' });
    expect(decode({ response_format: { type: 'json_object' } }).request.responseFormat).toEqual({ type: 'json_object' });
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const call = decode({ response_format: { type: 'json_schema', json_schema: { name: 'thing', schema, strict: true, description: 'A thing' } } });
    expect(call.request.responseFormat).toEqual({ type: 'json_schema', name: 'thing', schema, strict: true, description: 'A thing' });
    expect(call.parameters).toEqual([{ name: 'response_format', field: 'response_format' }]);
    expect(refusalOf({ response_format: { type: 'json_schema', json_schema: { name: 'x' } } }).param).toBe('response_format.json_schema.schema');
    expect(refusalOf({ response_format: { type: 'json_schema', json_schema: { schema } } }).param).toBe('response_format.json_schema.name');
    expect(refusalOf({ response_format: { type: 'grammar' } }).param).toBe('response_format.type');
    expect(refusalOf({ response_format: { type: 'text', extra: 1 } }).param).toBe('response_format.extra');
  });
});

describe('decodeChatCompletionsRequest: refused fields', () => {
  it.each([
    ['n', 2], ['logprobs', true], ['top_logprobs', 3], ['logit_bias', { 50256: -100 }],
    ['functions', [{ name: 'f' }]], ['function_call', 'auto'], ['audio', { voice: 'alloy', format: 'mp3' }],
    ['modalities', ['text', 'audio']], ['prediction', { type: 'content', content: 'x' }], ['store', true],
    ['service_tier', 'flex'], ['transforms', ['middle-out']],
    ['made_up_field', 1], ['max_tokenz', 5], ['verbosity', 'loud'],
  ])('refuses %s, naming it', (field, value) => {
    const error = refusalOf({ [field]: value });
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, param: field });
    expect(error.message).toContain(`'${field}'`);
  });

  it('accepts the inert defaults of refused fields', () => {
    expect(decode({ n: 1, logprobs: false, top_logprobs: 0, logit_bias: {}, store: false, modalities: ['text'] }).parameters).toEqual([]);
  });

  it('says why a requirement cannot be met', () => {
    expect(refusalOf({ n: 2 }).message).toBe("Unsupported parameter: 'n' is supported only with the value 1; send one request per choice.");
    expect(refusalOf({ logprobs: true }).message).toContain('does not return logprobs');
    expect(refusalOf({ service_tier: 'priority' }).message).toContain('cannot promise a tier');
  });

  it('never refuses neutral penalties: they ask for nothing', () => {
    const call = decode({ presence_penalty: 0, frequency_penalty: 0 });
    expect(call.parameters).toEqual([]);
    expect(call.request.presencePenalty).toBeUndefined();
  });

  it('accepts the hints agents send and keeps the cache key for routing', () => {
    const call = decode({
      prompt_cache_key: 'k1', prompt_cache_retention: '24h', metadata: { a: 'b' }, safety_identifier: 'u', service_tier: 'auto',
      verbosity: 'low', store: false, user: 'u1', parallel_tool_calls: true, stream: true, stream_options: { include_usage: true },
      messages: [{ role: 'system', name: 'sys', content: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }] }, { role: 'user', name: 'bob', content: 'hi' }],
    });
    expect(call.parameters).toEqual([]);
    expect(call.request).toMatchObject({ promptCacheKey: 'k1', user: 'u1', parallelToolCalls: true });
  });

  it('reads web_search_options as an offered web search: a preference, never a requirement', () => {
    const call = decode({ web_search_options: { search_context_size: 'low', user_location: { type: 'approximate', approximate: { city: 'Oslo' } } } });
    expect(call.request.webSearch).toEqual({ contextSize: 'low', userLocation: { city: 'Oslo' } });
    expect(call.parameters).toEqual([{ name: 'web_search', field: 'web_search_options', preference: true }]);
    expect(refusalOf({ web_search_options: { search_context_size: 'huge' } }).param).toBe('web_search_options.search_context_size');
    expect(refusalOf({ metadata: { a: 5 } }).param).toBe('metadata.a');
  });
});

describe('decodeChatCompletionsRequest: bodies sent by the official OpenAI SDK', () => {
  /** Captures the JSON body the SDK would send to the gateway. */
  async function sentBody(run: (client: OpenAI) => Promise<unknown>): Promise<Record<string, unknown>> {
    let body: Record<string, unknown> | undefined;
    const client = new OpenAI({
      apiKey: 'sk-test',
      baseURL: 'http://gateway.test/v1',
      maxRetries: 0,
      fetch: async (_url, init) => {
        body = JSON.parse(String(init?.body));
        return new Response(JSON.stringify({ error: { message: 'captured' } }), { status: 400 });
      },
    });
    await run(client).catch(() => undefined);
    if (!body) throw new Error('the SDK sent nothing');
    return body;
  }

  it('decodes a streaming helper call with tools, images and a prior tool round', async () => {
    const body = await sentBody(async (client) => {
      const stream = client.chat.completions.stream({
        model: 'openai/gpt-4o',
        messages: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Weather here?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
        tool_choice: 'auto',
        max_completion_tokens: 300,
        reasoning_effort: 'low',
        stream_options: { include_usage: true },
      });
      await stream.finalChatCompletion();
    });
    const call = decodeChatCompletionsRequest(body);
    expect(call.request.stream).toBe(true);
    expect(call.request.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(call.parameters.map((parameter) => parameter.field)).toEqual(['tools', 'tool_choice', 'max_completion_tokens', 'reasoning_effort']);
  });
});

describe('decodeChatCompletionsRequest: no reasoning', () => {
  it("takes reasoning_effort 'none' as the neutral value", () => {
    const call = decode({ reasoning_effort: 'none' });
    expect(call.request.reasoning).toBeUndefined();
    expect(call.parameters).toEqual([]);
  });
});

describe("decodeChatCompletionsRequest: OpenRouter's reasoning switches", () => {
  it('reads enabled: true alone as the default (medium) effort and enabled: false as no reasoning', () => {
    expect(decode({ reasoning: { enabled: true } }).request.reasoning).toEqual({ effort: 'medium' });
    const off = decode({ reasoning: { enabled: false, exclude: false } });
    expect(off.request.reasoning).toBeUndefined();
    expect(off.parameters).toEqual([]);
  });

  it('refuses exclude: true and contradictory switches, saying why', () => {
    expect(refusalOf({ reasoning: { effort: 'low', exclude: true } }).message).toContain('returns the reasoning it receives');
    expect(refusalOf({ reasoning: { enabled: false, effort: 'low' } }).param).toBe('reasoning.enabled');
  });
});
