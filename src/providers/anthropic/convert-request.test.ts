import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/content.js';
import type { TextRequest } from '../../core/text-request.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { convertToAnthropicRequest } from './convert-request.js';

const model = 'claude-sonnet-4-5-20250929';

function request(fields: Partial<TextRequest> = {}): TextRequest {
  return { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], stream: false, ...fields };
}

function convert(fields: Partial<TextRequest> = {}) {
  return convertToAnthropicRequest(request(fields), model, false);
}

function convertMessages(messages: Message[]) {
  return convert({ messages });
}

function thrownBy(action: () => unknown): GatewayError {
  try {
    action();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('convertToAnthropicRequest: body basics', () => {
  it('sends the provider model, a default max_tokens and no stream flag for generate', () => {
    expect(convert()).toEqual({ model, max_tokens: 4096, messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] });
  });

  it('sets stream only for streaming calls', () => {
    expect(convertToAnthropicRequest(request(), model, true).stream).toBe(true);
  });

  it('maps the sampling parameters, stop sequences and user', () => {
    expect(convert({ maxTokens: 300, temperature: 0.2, topP: 0.9, topK: 40, stop: ['\n\nEND'], user: 'user-42' })).toMatchObject({
      max_tokens: 300,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['\n\nEND'],
      metadata: { user_id: 'user-42' },
    });
  });
});

describe('convertToAnthropicRequest: system messages', () => {
  it('joins every system message, wherever it stands, into the top-level system string', () => {
    const body = convertMessages([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: [{ type: 'text', text: 'Again' }] },
    ]);
    expect(body.system).toBe('You are terse.\n\nAnswer in French.');
    // With the system message gone, the two user messages form one turn.
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: 'Again' }] }]);
  });

  it('omits system when there is none', () => {
    expect(convert()).not.toHaveProperty('system');
  });
});

describe('convertToAnthropicRequest: images', () => {
  const withImage = (source: Extract<Message, { role: 'user' }>['content'][number]) =>
    convertMessages([{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, source] }]).messages[0].content[1];

  it('sends inline bytes as a base64 source', () => {
    expect(withImage({ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } })).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
    });
  });

  it('sends a remote URL as a url source and ignores the OpenAI detail hint', () => {
    expect(withImage({ type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' }, detail: 'high' })).toEqual({
      type: 'image',
      source: { type: 'url', url: 'https://example.com/cat.jpg' },
    });
  });

  it('turns a data: URL into a base64 source, skipping media type parameters', () => {
    expect(withImage({ type: 'image', source: { kind: 'url', url: 'data:image/jpeg;base64,/9j/4AAQ' } })).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' },
    });
    expect(withImage({ type: 'image', source: { kind: 'url', url: 'data:image/webp;name=a.webp;base64,UklGR' } })).toMatchObject({
      source: { media_type: 'image/webp', data: 'UklGR' },
    });
  });

  it('refuses image types and data URLs that Anthropic cannot take', () => {
    const tiff = thrownBy(() => withImage({ type: 'image', source: { kind: 'base64', mediaType: 'image/tiff', data: 'AAAA' } }));
    expect(tiff).toMatchObject({ code: 'invalid_request', param: 'messages' });
    expect(tiff.message).toContain("messages[0]: image type 'image/tiff'");
    const percentEncoded = thrownBy(() => withImage({ type: 'image', source: { kind: 'url', url: 'data:image/svg+xml,%3Csvg%3E' } }));
    expect(percentEncoded.message).toContain('base64');
  });
});

describe('convertToAnthropicRequest: assistant turns', () => {
  it('turns text and tool calls into text and tool_use blocks, dropping empty text', () => {
    const body = convertMessages([
      { role: 'user', content: [{ type: 'text', text: 'Weather and time?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: '' },
          { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"location":"Paris"}' },
          { type: 'tool-call', id: 'toolu_2', name: 'get_time', arguments: '' },
        ],
      },
    ]);
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'Paris' } },
        { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
      ],
    });
  });

  it('refuses tool call arguments that are not a JSON object, naming the message and tool', () => {
    const messages = (args: string): Message[] => [
      { role: 'user', content: [{ type: 'text', text: 'Go' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 'toolu_1', name: 'lookup', arguments: args }] },
    ];
    const broken = thrownBy(() => convertMessages(messages('{"q": ')));
    expect(broken).toMatchObject({ code: 'invalid_request', status: 400, param: 'messages' });
    expect(broken.message).toBe("messages[1]: the arguments of tool call 'lookup' are not valid JSON");
    expect(thrownBy(() => convertMessages(messages('[1, 2]'))).message).toContain('must be a JSON object');
  });

  it('sends signed reasoning back as thinking, redacted reasoning as redacted_thinking, and drops unsigned reasoning', () => {
    const body = convertMessages([
      { role: 'user', content: [{ type: 'text', text: '27 * 453?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Multiply step by step.', signature: 'EqQBCgIYAh' },
          { type: 'reasoning', text: '', redactedData: 'EmwKAhgBEgy3' },
          { type: 'reasoning', text: 'Thoughts from another provider' },
          { type: 'text', text: '12,231' },
        ],
      },
    ]);
    expect(body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'Multiply step by step.', signature: 'EqQBCgIYAh' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3' },
      { type: 'text', text: '12,231' },
    ]);
  });

  it('leaves out an assistant message that held only unsigned reasoning, so the user turns around it merge', () => {
    const body = convertMessages([
      { role: 'user', content: [{ type: 'text', text: 'One' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'unsigned' }] },
      { role: 'user', content: [{ type: 'text', text: 'Two' }] },
    ]);
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'One' }, { type: 'text', text: 'Two' }] }]);
  });
});

describe('convertToAnthropicRequest: tool results', () => {
  const toolCalls: Message = {
    role: 'assistant',
    content: [
      { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"location":"Paris"}' },
      { type: 'tool-call', id: 'toolu_2', name: 'get_chart', arguments: '{}' },
    ],
  };

  it('merges consecutive tool results and the following user message into one user turn', () => {
    const body = convertMessages([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris, with a chart?' }] },
      toolCalls,
      { role: 'tool', toolCallId: 'toolu_1', content: [{ type: 'text', text: '18°C, cloudy' }] },
      {
        role: 'tool',
        toolCallId: 'toolu_2',
        content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } }],
      },
      { role: 'user', content: [{ type: 'text', text: 'Keep it short.' }] },
    ]);
    expect(body.messages).toHaveLength(3);
    expect(body.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '18°C, cloudy' }] },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }],
        },
        { type: 'text', text: 'Keep it short.' },
      ],
    });
  });

  it('marks failed tool calls with is_error and omits empty content', () => {
    const body = convertMessages([
      { role: 'user', content: [{ type: 'text', text: 'Go' }] },
      toolCalls,
      { role: 'tool', toolCallId: 'toolu_1', content: [{ type: 'text', text: 'city not found' }], isError: true },
      { role: 'tool', toolCallId: 'toolu_2', content: [] },
    ]);
    expect(body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'city not found' }], is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_2' },
    ]);
  });

  it('puts tool results ahead of user text that came before them in the same turn', () => {
    const body = convertMessages([
      { role: 'user', content: [{ type: 'text', text: 'Go' }] },
      toolCalls,
      { role: 'user', content: [{ type: 'text', text: 'Note: use metric.' }] },
      { role: 'tool', toolCallId: 'toolu_1', content: [{ type: 'text', text: '18°C' }] },
      { role: 'tool', toolCallId: 'toolu_2', content: [{ type: 'text', text: 'n/a' }] },
    ]);
    expect(body.messages[2].content.map((block) => block.type)).toEqual(['tool_result', 'tool_result', 'text']);
  });
});

describe('convertToAnthropicRequest: tools', () => {
  const weather = { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } };

  it('maps tool definitions onto input_schema', () => {
    expect(convert({ tools: [weather, { name: 'ping', parameters: { type: 'object' }, strict: true }] }).tools).toEqual([
      { name: 'get_weather', description: 'Current weather', input_schema: weather.parameters },
      { name: 'ping', input_schema: { type: 'object' }, strict: true },
    ]);
  });

  it.each([
    ['auto', undefined, { type: 'auto' }],
    ['required', undefined, { type: 'any' }],
    ['none', undefined, { type: 'none' }],
    [{ type: 'tool', name: 'get_weather' }, undefined, { type: 'tool', name: 'get_weather' }],
    ['auto', false, { type: 'auto', disable_parallel_tool_use: true }],
    ['required', false, { type: 'any', disable_parallel_tool_use: true }],
    [{ type: 'tool', name: 'get_weather' }, false, { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true }],
    [undefined, false, { type: 'auto', disable_parallel_tool_use: true }],
    ['none', false, { type: 'none' }],
    [undefined, true, undefined],
  ] as const)('tool choice %j with parallel %s → %j', (toolChoice, parallelToolCalls, expected) => {
    expect(convert({ tools: [weather], toolChoice, parallelToolCalls }).tool_choice).toEqual(expected);
  });
});

describe('convertToAnthropicRequest: reasoning', () => {
  it('sends an explicit budget as thinking.budget_tokens', () => {
    expect(convert({ maxTokens: 8000, reasoning: { maxTokens: 2000 } }).thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
  });

  it.each([
    ['minimal', 1024],
    ['low', 1024],
    ['medium', 4096],
    ['high', 16384],
  ] as const)('maps effort %s to a budget of %i and raises the default max_tokens above it', (effort, budget) => {
    const body = convert({ reasoning: { effort } });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
    expect(body.max_tokens).toBe(budget + 4096);
  });

  it('refuses a budget that does not fit under max_tokens or is below the 1024 minimum', () => {
    expect(thrownBy(() => convert({ maxTokens: 2000, reasoning: { effort: 'high' } }))).toMatchObject({ code: 'invalid_request', param: 'reasoning' });
    expect(thrownBy(() => convert({ reasoning: { maxTokens: 500 } })).message).toContain('at least 1024');
  });

  it('sends no thinking when reasoning asks for nothing', () => {
    expect(convert({ reasoning: {} })).not.toHaveProperty('thinking');
  });
});

describe('convertToAnthropicRequest: parameters without an Anthropic field', () => {
  it.each([
    ['seed', { seed: 7 }],
    ['frequency_penalty', { frequencyPenalty: 0.5 }],
    ['presence_penalty', { presencePenalty: 0.5 }],
  ] as const)('refuses %s by name', (name, fields) => {
    const error = thrownBy(() => convert(fields));
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, param: name });
    expect(error.message).toContain(`'${name}'`);
  });

  it('accepts a plain text response format, which asks for nothing', () => {
    expect(convert({ responseFormat: { type: 'text' } })).toEqual(convert());
  });
});

describe('convertToAnthropicRequest: JSON mode emulated with a tool', () => {
  const jsonTool = { name: 'json_response', description: expect.any(String), input_schema: { type: 'object', additionalProperties: true } };
  const weather = { name: 'weather', parameters: { type: 'object', properties: {} } };

  it('forces a tool whose input is any object', () => {
    const body = convert({ responseFormat: { type: 'json_object' } });
    expect(body.tools).toEqual([jsonTool]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'json_response' });
    expect(body).not.toHaveProperty('output_config');
  });

  it("beside the client's tools, makes the model call one (any), and leaves a tool the client forced", () => {
    expect(convert({ responseFormat: { type: 'json_object' }, tools: [weather] }).tool_choice).toEqual({ type: 'any' });
    expect(convert({ responseFormat: { type: 'json_object' }, tools: [weather], toolChoice: 'none' }).tool_choice).toEqual({ type: 'tool', name: 'json_response' });
    expect(convert({ responseFormat: { type: 'json_object' }, tools: [weather], toolChoice: { type: 'tool', name: 'weather' } }).tool_choice).toEqual({ type: 'tool', name: 'weather' });
  });

  it('only offers it when thinking is on, which Anthropic does not let a tool choice force', () => {
    const body = convert({ responseFormat: { type: 'json_object' }, maxTokens: 8000, reasoning: { maxTokens: 2048 } });
    expect(body.thinking).toMatchObject({ type: 'enabled' });
    expect(body.tool_choice).toEqual({ type: 'auto' });
  });
});

describe('convertToAnthropicRequest: structured output and web search from the OpenAI styles', () => {
  const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };

  it('sends a json_schema format as output_config.format', () => {
    expect(convert({ responseFormat: { type: 'json_schema', name: 'person', schema, strict: true } }).output_config).toEqual({
      format: { type: 'json_schema', schema },
    });
  });

  it('adds the server web search tool after the functions, with its domains and location', () => {
    const body = convert({
      tools: [{ name: 'f', parameters: { type: 'object' } }],
      webSearch: { contextSize: 'high', allowedDomains: ['example.com'], userLocation: { city: 'Paris', country: 'FR' } },
    });
    expect(body.tools).toEqual([
      { name: 'f', input_schema: { type: 'object' } },
      { type: 'web_search_20250305', name: 'web_search', allowed_domains: ['example.com'], user_location: { type: 'approximate', city: 'Paris', country: 'FR' } },
    ]);
  });
});

describe('convertToAnthropicRequest: cache breakpoints from the OpenAI styles', () => {
  it('puts cache_control on the text block of a user part that carries a breakpoint, and only there', () => {
    const body = convert({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'long context', cacheControl: { type: 'ephemeral', ttl: '1h' } }, { type: 'text', text: 'question' }] }],
    });
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'long context', cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'question' },
    ]);
  });
});

describe('convertToAnthropicRequest: cache breakpoints on the system prompt', () => {
  it('keeps a plain joined system string without breakpoints, and sends blocks when one carries a breakpoint', () => {
    const plain = convert({ messages: [{ role: 'system', content: 'a' }, { role: 'system', content: 'b' }, { role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(plain.system).toBe('a\n\nb');
    const cached = convert({
      messages: [{ role: 'system', content: 'a', cacheControl: { type: 'ephemeral' } }, { role: 'system', content: 'b' }, { role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    expect(cached.system).toEqual([{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'b' }]);
  });
});

describe('convertToAnthropicRequest: what a Messages client sent for Anthropic', () => {
  const ask = (extra: Partial<TextRequest>) => convertToAnthropicRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], maxTokens: 32000, stream: true, ...extra }, 'claude-x', true);

  it('sends adaptive thinking with its display and effort, and a budget with its display', () => {
    expect(ask({ reasoning: { adaptive: true, effort: 'high', display: 'omitted' } })).toMatchObject({ thinking: { type: 'adaptive', display: 'omitted' }, output_config: { effort: 'high' } });
    expect(ask({ reasoning: { adaptive: true, effort: 'high' }, anthropic: { body: {}, betas: [], effort: 'max' } }).output_config).toEqual({ effort: 'max' });
    expect(ask({ reasoning: { maxTokens: 4096, effort: 'medium', display: 'omitted' } }).thinking).toEqual({ type: 'enabled', budget_tokens: 4096, display: 'omitted' });
  });

  it('forwards the Anthropic-only fields as they came', () => {
    const body = ask({ anthropic: { body: { context_management: { edits: [{ type: 'clear_thinking_20251015' }] }, cache_control: { type: 'ephemeral' } }, betas: ['x'] } });
    expect(body).toMatchObject({ context_management: { edits: [{ type: 'clear_thinking_20251015' }] }, cache_control: { type: 'ephemeral' } });
  });

  it('sends thinking between_tools, with an effort beside it but no budget from it', () => {
    expect(ask({ anthropic: { body: {}, betas: [], betweenTools: true } })).toMatchObject({ thinking: { type: 'between_tools' } });
    expect(ask({ anthropic: { body: {}, betas: [], betweenTools: true } }).output_config).toBeUndefined();
    const withEffort = ask({ reasoning: { effort: 'high' }, anthropic: { body: {}, betas: [], betweenTools: true, effort: 'max' } });
    expect(withEffort.thinking).toEqual({ type: 'between_tools' });
    expect(withEffort.output_config).toEqual({ effort: 'max' });
  });

  it('keeps thinking disabled beside an effort: thinking disabled and the effort as output_config.effort, no budget', () => {
    for (const effort of ['low', 'medium', 'high', 'xhigh', 'max'] as const) {
      const body = ask({ maxTokens: 1024, anthropic: { body: {}, betas: [], thinkingDisabled: true, effort } });
      expect(body.thinking).toEqual({ type: 'disabled' });
      expect(body.output_config).toEqual({ effort });
      expect(body.max_tokens).toBe(1024);
    }
    // Even beside a reasoning effort someone left in the request, disabled wins.
    const body = ask({ reasoning: { effort: 'high' }, anthropic: { body: {}, betas: [], thinkingDisabled: true, effort: 'high' } });
    expect(body.thinking).toEqual({ type: 'disabled' });
    expect(body.output_config).toEqual({ effort: 'high' });
    expect(ask({ anthropic: { body: {}, betas: [], thinkingDisabled: true } })).toMatchObject({ thinking: { type: 'disabled' } });
    expect(ask({ anthropic: { body: {}, betas: [], thinkingDisabled: true } }).output_config).toBeUndefined();
  });

  it('sends a Messages client’s effort as output_config.effort, never as a budget, whatever the thinking', () => {
    // No thinking: Anthropic's own meaning of an effort alone, not thinking with a budget.
    const alone = ask({ maxTokens: 1024, reasoning: { effort: 'high' }, anthropic: { body: {}, betas: [], effort: 'high' } });
    expect(alone).not.toHaveProperty('thinking');
    expect(alone.output_config).toEqual({ effort: 'high' });
    // A budget the client set goes beside it.
    const enabled = ask({ reasoning: { maxTokens: 4096, effort: 'low' }, anthropic: { body: {}, betas: [], effort: 'low' } });
    expect(enabled.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(enabled.output_config).toEqual({ effort: 'low' });
    // Routing dropped the advisory reasoning for an endpoint that does not reason: no effort either.
    expect(ask({ anthropic: { body: {}, betas: [], effort: 'high' } })).not.toHaveProperty('output_config');
  });

  it.each(['summarized', 'omitted', 'updates'] as const)('forwards thinking.display %s as sent', (display) => {
    expect(ask({ reasoning: { adaptive: true, display } }).thinking).toEqual({ type: 'adaptive', display });
    expect(ask({ reasoning: { maxTokens: 4096, effort: 'medium', display } }).thinking).toEqual({ type: 'enabled', budget_tokens: 4096, display });
  });

  it('puts block_binding into the thinking it came with, and task_budget into output_config beside the effort and format', () => {
    const binding = { prefix_mismatch_behavior: 'drop_block' };
    expect(ask({ reasoning: { adaptive: true }, anthropic: { body: {}, betas: [], blockBinding: binding } }).thinking).toEqual({ type: 'adaptive', block_binding: binding });
    expect(ask({ reasoning: { maxTokens: 4096, effort: 'medium' }, anthropic: { body: {}, betas: [], blockBinding: {} } }).thinking).toEqual({ type: 'enabled', budget_tokens: 4096, block_binding: {} });
    const budget = { type: 'tokens', total: 64000 };
    const schema = { type: 'object' };
    expect(
      ask({ reasoning: { adaptive: true, effort: 'high' }, responseFormat: { type: 'json_schema', name: 'response', schema }, anthropic: { body: {}, betas: [], taskBudget: budget } }).output_config,
    ).toEqual({ format: { type: 'json_schema', schema }, effort: 'high', task_budget: budget });
  });

  it('sends the web search tool with blocked domains', () => {
    expect(ask({ webSearch: { blockedDomains: ['spam.example'] } }).tools).toEqual([{ type: 'web_search_20250305', name: 'web_search', blocked_domains: ['spam.example'] }]);
  });
});
