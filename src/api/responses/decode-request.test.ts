import { describe, expect, it } from 'vitest';
import { catchGatewayError } from '../../errors/__fixtures__/catch-gateway-error.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { decodeResponsesRequest } from './decode-request.js';

const base = { model: 'openai/gpt-4o-mini', input: 'Hi' };

function refusal(body: Record<string, unknown>): GatewayError {
  return catchGatewayError(() => decodeResponsesRequest(body));
}

describe('decodeResponsesRequest: routing and basics', () => {
  it('decodes a minimal request with defaults in the echo and no parameters', () => {
    const { call, echo } = decodeResponsesRequest(base);
    expect(call.route).toEqual({ model: 'openai/gpt-4o-mini', fallbackModels: [], provider: undefined });
    expect(call.request).toEqual({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], stream: false });
    expect(call.parameters).toEqual([]);
    expect(echo).toEqual({
      instructions: null, tools: [], tool_choice: 'auto', temperature: 1, top_p: 1, presence_penalty: 0, frequency_penalty: 0, top_logprobs: 0,
      max_output_tokens: null, max_tool_calls: null, parallel_tool_calls: true, text: { format: { type: 'text' } }, reasoning: { effort: null, summary: null },
      metadata: {}, service_tier: 'default', safety_identifier: null, prompt_cache_key: null, store: true, previous_response_id: null, truncation: 'disabled',
    });
  });

  it('echoes the sampling, caching and end-user fields the client sent, with their effective values', () => {
    const { echo } = decodeResponsesRequest({ ...base, temperature: 0.3, top_p: 0.5, safety_identifier: 'user-7', prompt_cache_key: 'k1', service_tier: 'auto', top_logprobs: 0 });
    expect(echo).toMatchObject({ temperature: 0.3, top_p: 0.5, safety_identifier: 'user-7', prompt_cache_key: 'k1', service_tier: 'default', top_logprobs: 0 });
  });

  it('passes models and provider to the shared route decoder', () => {
    const { call } = decodeResponsesRequest({ ...base, models: ['a/b', 'openai/gpt-4o-mini'], provider: { order: ['openai'], sort: 'price' } });
    expect(call.route).toEqual({ model: 'openai/gpt-4o-mini', fallbackModels: ['a/b'], provider: { order: ['openai'], sort: 'price' } });
  });

  it('requires model and input', () => {
    expect(refusal({ input: 'x' }).param).toBe('model');
    expect(refusal({ model: 'm' }).message).toBe("'input' is required");
  });

  it('reads stream', () => {
    expect(decodeResponsesRequest({ ...base, stream: true }).call.request.stream).toBe(true);
    expect(decodeResponsesRequest({ ...base, stream: null }).call.request.stream).toBe(false);
    expect(refusal({ ...base, stream: 'yes' }).message).toBe("'stream' must be a boolean");
  });

  it('puts instructions first as a system message and echoes them', () => {
    const { call, echo } = decodeResponsesRequest({ ...base, instructions: 'Be brief.', input: [{ role: 'developer', content: 'Use French.' }, { role: 'user', content: 'Hi' }] });
    expect(call.request.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Use French.' },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
    ]);
    expect(echo.instructions).toBe('Be brief.');
    expect(refusal({ ...base, instructions: ['x'] }).message).toBe("'instructions' must be a string");
  });
});

describe('decodeResponsesRequest: sampling and limits', () => {
  it('maps each optional parameter to its canonical name and field', () => {
    const { call, echo } = decodeResponsesRequest({
      ...base, max_output_tokens: 256, temperature: 0.2, top_p: 0.9, parallel_tool_calls: false, user: 'u-1', metadata: { team: 'a' },
    });
    expect(call.request).toMatchObject({ maxTokens: 256, temperature: 0.2, topP: 0.9, parallelToolCalls: false, user: 'u-1' });
    // parallel_tool_calls and user are hints: set on the request, never a routing requirement.
    expect(call.parameters).toEqual([
      { name: 'max_tokens', field: 'max_output_tokens' },
      { name: 'temperature', field: 'temperature' },
      { name: 'top_p', field: 'top_p' },
    ]);
    expect(echo).toMatchObject({ max_output_tokens: 256, temperature: 0.2, top_p: 0.9, parallel_tool_calls: false, user: 'u-1', metadata: { team: 'a' } });
  });

  it('treats null as not set', () => {
    const { call } = decodeResponsesRequest({ ...base, temperature: null, top_p: null, max_output_tokens: null, user: null, metadata: null });
    expect(call.parameters).toEqual([]);
  });

  it('refuses out-of-range values, naming the field', () => {
    expect(refusal({ ...base, temperature: 3 }).message).toBe("'temperature' must be a number between 0 and 2");
    expect(refusal({ ...base, top_p: -0.1 }).param).toBe('top_p');
    expect(refusal({ ...base, max_output_tokens: 0 }).message).toBe("'max_output_tokens' must be a positive integer");
    expect(refusal({ ...base, max_output_tokens: 1.5 }).param).toBe('max_output_tokens');
    expect(refusal({ ...base, parallel_tool_calls: 'no' }).param).toBe('parallel_tool_calls');
  });

  it('validates metadata against OpenAI limits', () => {
    expect(refusal({ ...base, metadata: { a: 1 } }).message).toBe("'metadata.a' must be a string of at most 512 characters");
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v']));
    expect(refusal({ ...base, metadata: many }).message).toBe("'metadata' may hold at most 16 pairs");
    expect(refusal({ ...base, metadata: 'x' }).message).toBe("'metadata' must be an object");
  });
});

describe('decodeResponsesRequest: text format and reasoning', () => {
  it('maps json_schema format to response_format', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const { call, echo } = decodeResponsesRequest({ ...base, text: { format: { type: 'json_schema', name: 'out', schema, strict: true, description: 'd' } } });
    expect(call.request.responseFormat).toEqual({ type: 'json_schema', name: 'out', schema, strict: true, description: 'd' });
    expect(call.parameters).toEqual([{ name: 'response_format', field: 'text.format' }]);
    expect(echo.text).toEqual({ format: { type: 'json_schema', name: 'out', schema, description: 'd', strict: true } });
  });

  it('maps json_object, and leaves the default text format off the canonical request', () => {
    expect(decodeResponsesRequest({ ...base, text: { format: { type: 'json_object' } } }).call.request.responseFormat).toEqual({ type: 'json_object' });
    const plain = decodeResponsesRequest({ ...base, text: { format: { type: 'text' } } });
    expect(plain.call.request.responseFormat).toBeUndefined();
    expect(plain.call.parameters).toEqual([]);
  });

  it('refuses malformed or unknown text options', () => {
    expect(refusal({ ...base, text: { format: { type: 'json_schema', schema: {} } } }).message).toBe("'text.format.name' is required");
    expect(refusal({ ...base, text: { format: { type: 'json_schema', name: 'x' } } }).param).toBe('text.format.schema');
    expect(refusal({ ...base, text: { format: { type: 'xml' } } }).param).toBe('text.format.type');
    expect(refusal({ ...base, text: { verbosity: 'loud' } }).param).toBe('text.verbosity');
    expect(refusal({ ...base, text: { colour: 'red' } }).param).toBe('text.colour');
    expect(() => decodeResponsesRequest({ ...base, text: { verbosity: 'low' } })).not.toThrow();
  });

  it('maps reasoning effort and echoes the summary setting', () => {
    const { call, echo } = decodeResponsesRequest({ ...base, reasoning: { effort: 'high', summary: 'auto' } });
    expect(call.request.reasoning).toEqual({ effort: 'high' });
    expect(call.parameters).toEqual([{ name: 'reasoning', field: 'reasoning.effort', preference: true }]);
    expect(echo.reasoning).toEqual({ effort: 'high', summary: 'auto' });
  });

  it('takes a summary alone as a hint, echoed but no reasoning requirement, also under its deprecated name', () => {
    const summary = decodeResponsesRequest({ ...base, reasoning: { summary: 'detailed' } });
    expect(summary.call.request.reasoning).toBeUndefined();
    expect(summary.call.parameters).toEqual([]);
    expect(summary.echo.reasoning).toEqual({ effort: null, summary: 'detailed' });
    expect(decodeResponsesRequest({ ...base, reasoning: { generate_summary: 'concise' } }).echo.reasoning).toEqual({ effort: null, summary: 'concise' });
    expect(refusal({ ...base, reasoning: { generate_summary: 'long' } }).param).toBe('reasoning.generate_summary');
  });

  it('treats an empty reasoning object as not set and refuses efforts with no canonical meaning', () => {
    expect(decodeResponsesRequest({ ...base, reasoning: {} }).call.parameters).toEqual([]);
    expect(refusal({ ...base, reasoning: { effort: 'xhigh' } }).param).toBe('reasoning.effort');
    expect(refusal({ ...base, reasoning: { effort: 'loud' } }).message).toBe("'reasoning.effort' must be one of minimal, low, medium, high");
    expect(refusal({ ...base, reasoning: { mode: 'pro' } }).param).toBe('reasoning.mode');
  });
});

describe('decodeResponsesRequest: state the gateway does not keep', () => {
  it('accepts the stateless values', () => {
    expect(() => decodeResponsesRequest({ ...base, store: false, background: false, include: [], truncation: 'disabled', previous_response_id: null, conversation: null })).not.toThrow();
  });

  it('stores by default, as OpenAI does, and refuses a store that is not a boolean', () => {
    expect(decodeResponsesRequest(base).echo.store).toBe(true);
    expect(decodeResponsesRequest({ ...base, store: true }).echo.store).toBe(true);
    expect(decodeResponsesRequest({ ...base, store: false }).echo.store).toBe(false);
    const error = refusal({ ...base, store: 'yes' });
    expect(error.message).toBe("'store' must be a boolean");
    expect(error.param).toBe('store');
  });

  it.each([
    ['conversation', 'conv_1'],
    ['background', true],
    ['context_management', [{ type: 'compaction', compact_threshold: 1000 }]],
    ['prompt', { id: 'pmpt_1' }],
    ['moderation', { model: 'omni-moderation-latest' }],
  ])('refuses %s, naming it', (field, value) => {
    const error = refusal({ ...base, [field]: value });
    expect(error.code).toBe('invalid_request');
    expect(error.param).toBe(field);
    expect(error.message).toContain(`'${field}'`);
  });

  it.each(['frobnicate', 'max_tokenz'])('refuses the field %s, which the style does not define', (field) => {
    const error = refusal({ ...base, [field]: 'x' });
    expect(error.message).toBe(`Unsupported parameter: '${field}' is not supported.`);
    expect(error.param).toBe(field);
  });
});

describe('decodeResponsesRequest: hints', () => {
  it('accepts what Codex and the SDK send as hints, and keeps the cache key for routing', () => {
    const { call } = decodeResponsesRequest({
      ...base,
      store: false,
      include: ['reasoning.encrypted_content', 'web_search_call.action.sources'],
      prompt_cache_key: 'session-1',
      prompt_cache_retention: '24h',
      prompt_cache_options: { mode: 'implicit' },
      service_tier: 'auto',
      safety_identifier: 'hashed-user',
      client_metadata: { originator: 'codex_exec' },
      stream_options: { include_obfuscation: false },
      top_logprobs: 0,
      parallel_tool_calls: true,
    });
    expect(call.request.promptCacheKey).toBe('session-1');
    expect(call.parameters).toEqual([]);
    expect(() => decodeResponsesRequest({ ...base, service_tier: 'default' })).not.toThrow();
  });

  it('refuses the values that are requirements the gateway cannot meet, saying why', () => {
    expect(refusal({ ...base, service_tier: 'flex' }).message).toContain("'flex' is not supported; the gateway cannot promise a tier");
    expect(refusal({ ...base, service_tier: 'cheap' }).param).toBe('service_tier');
    expect(refusal({ ...base, top_logprobs: 3 }).message).toContain('does not return logprobs');
    expect(refusal({ ...base, include: ['message.output_text.logprobs'] }).param).toBe('include[0]');
    expect(refusal({ ...base, include: ['everything'] }).param).toBe('include[0]');
    expect(refusal({ ...base, prompt_cache_key: 7 }).param).toBe('prompt_cache_key');
    expect(refusal({ ...base, stream_options: { include_usage: true } }).param).toBe('stream_options.include_usage');
  });
});

describe('decodeResponsesRequest: no reasoning', () => {
  it("takes effort 'none' as the neutral value: echoed, no reasoning requirement", () => {
    const { call, echo } = decodeResponsesRequest({ ...base, reasoning: { effort: 'none', summary: 'auto' } });
    expect(call.request.reasoning).toBeUndefined();
    expect(call.parameters).toEqual([]);
    expect(echo.reasoning).toEqual({ effort: 'none', summary: 'auto' });
  });
});

describe('decodeResponsesRequest: reasoning.context and reasoning.mode', () => {
  it.each([
    [{ context: 'auto' }],
    [{ context: null }],
    [{ mode: 'standard' }],
    [{ mode: null }],
    [{ effort: 'none', context: 'auto', mode: 'standard' }],
  ])('never refuses the neutral value %j, and asks for no reasoning by it', (reasoning) => {
    const { call } = decodeResponsesRequest({ ...base, reasoning });
    expect(call.request.reasoning).toBeUndefined();
    expect(call.parameters).toEqual([]);
  });

  it('takes context as a hint: every mode accepted, nothing routed on it, the effort beside it as usual', () => {
    for (const context of ['current_turn', 'all_turns']) {
      const { call } = decodeResponsesRequest({ ...base, reasoning: { effort: 'low', context } });
      expect(call.request.reasoning).toEqual({ effort: 'low' });
      expect(call.parameters).toEqual([{ name: 'reasoning', field: 'reasoning.effort', preference: true }]);
    }
    expect(refusal({ ...base, reasoning: { context: 'every_turn' } })).toMatchObject({ code: 'invalid_request', param: 'reasoning.context' });
  });

  it("refuses mode 'pro', a requirement no protocol here meets, saying why and what to send", () => {
    const error = refusal({ ...base, reasoning: { effort: 'high', mode: 'pro' } });
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, param: 'reasoning.mode' });
    expect(error.message).toMatch(/'pro' is not supported: OpenAI’s pro execution mode runs only in OpenAI’s Responses API/);
    expect(error.message).toMatch(/leave mode out or send 'standard'/);
    expect(refusal({ ...base, reasoning: { mode: 'turbo' } }).message).toMatch(/value 'turbo' is not supported; 'standard' is the only execution mode/);
    expect(refusal({ ...base, reasoning: { mode: 5 } }).param).toBe('reasoning.mode');
  });
});
