import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/content.js';
import type { TextRequest } from '../../core/text-request.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { convertToChatCompletionsRequest, isOpenAiHost, type ChatCompletionsTarget } from './convert-request.js';

const openai: ChatCompletionsTarget = { providerModel: 'gpt-4o-mini', baseUrl: 'https://api.openai.com/v1', stream: false };
const groq: ChatCompletionsTarget = { providerModel: 'llama-3.3-70b-versatile', baseUrl: 'https://api.groq.com/openai/v1', stream: false };
const vllm: ChatCompletionsTarget = { providerModel: 'Qwen/Qwen3-8B', baseUrl: 'http://10.0.0.5:8000/v1', stream: false };

function request(fields: Partial<TextRequest> = {}): TextRequest {
  return { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], stream: false, ...fields };
}

function messages(...list: Message[]): TextRequest {
  return request({ messages: list });
}

describe('convertToChatCompletionsRequest', () => {
  it('sends only the model and messages for a bare request', () => {
    expect(convertToChatCompletionsRequest(request(), openai)).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  it('asks for usage on streams', () => {
    const body = convertToChatCompletionsRequest(request({ stream: true }), { ...openai, stream: true });
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  it('takes the stream flag from the target, not the request', () => {
    const body = convertToChatCompletionsRequest(request({ stream: true }), openai);
    expect(body).not.toHaveProperty('stream');
    expect(body).not.toHaveProperty('stream_options');
  });

  describe('messages', () => {
    it('sends system messages with the system role', () => {
      const body = convertToChatCompletionsRequest(messages({ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: 'Hi' }] }), openai);
      expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    });

    it('joins text-only user content into one string', () => {
      const body = convertToChatCompletionsRequest(
        messages({ role: 'user', content: [{ type: 'text', text: 'first block' }, { type: 'text', text: 'second block' }] }),
        groq,
      );
      expect(body.messages).toEqual([{ role: 'user', content: 'first block\nsecond block' }]);
    });

    it('sends images as image_url parts, base64 as a data: URL, with detail', () => {
      const body = convertToChatCompletionsRequest(
        messages({
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these.' },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' }, detail: 'low' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQSkZJRg==' } },
          ],
        }),
        openai,
      );
      expect(body.messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these.' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQSkZJRg==' } },
          ],
        },
      ]);
    });

    it('sends assistant text and tool calls, and leaves reasoning behind', () => {
      const body = convertToChatCompletionsRequest(
        messages({
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'The user wants the weather.', signature: 'sig' },
            { type: 'text', text: 'Let me check.' },
            { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { type: 'tool-call', id: 'call_2', name: 'get_time', arguments: '' },
          ],
        }),
        openai,
      );
      expect(body.messages).toEqual([
        {
          role: 'assistant',
          content: 'Let me check.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
      ]);
      expect(JSON.stringify(body)).not.toContain('reasoning');
    });

    it('sends null content for an assistant turn with only tool calls, and "" for one with only reasoning', () => {
      const body = convertToChatCompletionsRequest(
        messages(
          { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'f', arguments: '{}' }] },
          { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }] },
        ),
        groq,
      );
      expect(body.messages[0]).toMatchObject({ role: 'assistant', content: null });
      expect(body.messages[1]).toEqual({ role: 'assistant', content: '' });
    });

    it('sends tool results as tool messages with string content', () => {
      const body = convertToChatCompletionsRequest(
        messages({
          role: 'tool',
          toolCallId: 'call_1',
          toolName: 'get_weather',
          content: [
            { type: 'text', text: '{"temp":18}' },
            { type: 'text', text: 'source: met office' },
          ],
          isError: false,
        }),
        openai,
      );
      expect(body.messages).toEqual([{ role: 'tool', tool_call_id: 'call_1', content: '{"temp":18}\nsource: met office' }]);
    });

    it('refuses an image in a tool result rather than dropping it', () => {
      const convert = () =>
        convertToChatCompletionsRequest(
          messages({ role: 'tool', toolCallId: 'call_1', content: [{ type: 'image', source: { kind: 'url', url: 'https://example.com/s.png' } }] }),
          openai,
        );
      expect(convert).toThrow(GatewayError);
      expect(convert).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'messages' }));
    });
  });

  it('converts tools, tool choice and parallel tool calls', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const body = convertToChatCompletionsRequest(
      request({
        tools: [{ name: 'get_weather', description: 'Weather now', parameters, strict: true }, { name: 'noop', parameters: {} }],
        toolChoice: { type: 'tool', name: 'get_weather' },
        parallelToolCalls: false,
      }),
      openai,
    );
    expect(JSON.parse(JSON.stringify(body))).toMatchObject({
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters, strict: true } },
        { type: 'function', function: { name: 'noop', parameters: {} } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
    });
    expect(JSON.parse(JSON.stringify(body)).tools[1].function).not.toHaveProperty('strict');
  });

  it.each(['auto', 'none', 'required'] as const)('passes tool choice %s through', (choice) => {
    expect(convertToChatCompletionsRequest(request({ toolChoice: choice }), openai).tool_choice).toBe(choice);
  });

  it('omits parallel_tool_calls when there are no tools (OpenAI refuses it alone)', () => {
    expect(convertToChatCompletionsRequest(request({ parallelToolCalls: true }), openai)).not.toHaveProperty('parallel_tool_calls');
  });

  it('converts response formats', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    expect(
      convertToChatCompletionsRequest(request({ responseFormat: { type: 'json_schema', name: 'answer', schema, strict: true, description: 'An answer' } }), openai)
        .response_format,
    ).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema, strict: true, description: 'An answer' } });
    expect(convertToChatCompletionsRequest(request({ responseFormat: { type: 'json_object' } }), groq).response_format).toEqual({ type: 'json_object' });
    expect(convertToChatCompletionsRequest(request({ responseFormat: { type: 'text' } }), groq).response_format).toEqual({ type: 'text' });
  });

  it('passes sampling parameters, stop, seed, user and reasoning effort', () => {
    const body = convertToChatCompletionsRequest(
      request({
        temperature: 0.2,
        topP: 0.9,
        frequencyPenalty: 0.5,
        presencePenalty: -0.5,
        seed: 42,
        stop: ['\n\n', 'END'],
        user: 'user-123',
        reasoning: { effort: 'low' },
      }),
      openai,
    );
    expect(body).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      frequency_penalty: 0.5,
      presence_penalty: -0.5,
      seed: 42,
      stop: ['\n\n', 'END'],
      user: 'user-123',
      reasoning_effort: 'low',
    });
  });

  it('keeps zero values', () => {
    expect(convertToChatCompletionsRequest(request({ temperature: 0, seed: 0 }), openai)).toMatchObject({ temperature: 0, seed: 0 });
  });

  describe('max tokens', () => {
    it('sends max_completion_tokens to api.openai.com', () => {
      const body = convertToChatCompletionsRequest(request({ maxTokens: 256 }), openai);
      expect(body.max_completion_tokens).toBe(256);
      expect(body).not.toHaveProperty('max_tokens');
    });

    it.each([groq, vllm, { ...openai, baseUrl: 'https://openrouter.ai/api/v1' }])('sends max_tokens to $baseUrl', (target) => {
      const body = convertToChatCompletionsRequest(request({ maxTokens: 256 }), target);
      expect(body.max_tokens).toBe(256);
      expect(body).not.toHaveProperty('max_completion_tokens');
    });
  });

  it('tells api.openai.com from other hosts, call after call (the answer is remembered per base URL)', () => {
    for (let round = 0; round < 3; round += 1) {
      expect(isOpenAiHost('https://api.openai.com/v1')).toBe(true);
      expect(isOpenAiHost('https://openrouter.ai/api/v1')).toBe(false);
      expect(isOpenAiHost('https://api.openai.com.example.net/v1')).toBe(false);
      expect(isOpenAiHost('not a url')).toBe(false);
    }
  });

  describe('top_k', () => {
    it('sends top_k to compatible servers', () => {
      expect(convertToChatCompletionsRequest(request({ topK: 40 }), vllm).top_k).toBe(40);
    });

    it('refuses top_k for api.openai.com, naming the parameter', () => {
      expect(() => convertToChatCompletionsRequest(request({ topK: 40 }), openai)).toThrow(
        expect.objectContaining({ name: 'GatewayError', code: 'invalid_request', param: 'top_k' }),
      );
    });
  });

  it('refuses a reasoning token budget, which Chat Completions cannot carry', () => {
    expect(() => convertToChatCompletionsRequest(request({ reasoning: { maxTokens: 2048 } }), vllm)).toThrow(
      expect.objectContaining({ code: 'invalid_request', param: 'reasoning.max_tokens' }),
    );
  });
});

describe('convertToChatCompletionsRequest: web search and the prompt cache key', () => {
  it('sends a web search as web_search_options', () => {
    const body = convertToChatCompletionsRequest(request({ webSearch: { contextSize: 'high', userLocation: { city: 'Oslo' } } }), openai);
    expect(body.web_search_options).toEqual({ search_context_size: 'high', user_location: { type: 'approximate', approximate: { city: 'Oslo' } } });
  });

  it('refuses a domain filter, which web_search_options has no field for, rather than search every site', () => {
    for (const webSearch of [{ allowedDomains: ['example.com'] }, { blockedDomains: ['example.com'] }]) {
      expect(() => convertToChatCompletionsRequest(request({ webSearch }), openai)).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'web_search' }));
    }
  });

  it('sends nothing for the Claude-only thinking and budget options of a Messages client (hints here)', () => {
    const body = convertToChatCompletionsRequest(request({ anthropic: { body: {}, betas: [], betweenTools: true, blockBinding: {}, taskBudget: { type: 'tokens', total: 20000 } } }), openai);
    expect(body).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    // Thinking disabled, with an effort beside it: no reasoning_effort.
    const disabled = convertToChatCompletionsRequest(request({ anthropic: { body: {}, betas: [], thinkingDisabled: true, effort: 'high' } }), openai);
    expect(disabled).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
  });

  it('forwards prompt_cache_key to OpenAI itself only, as it is a hint other servers may not know', () => {
    expect(convertToChatCompletionsRequest(request({ promptCacheKey: 'k' }), openai).prompt_cache_key).toBe('k');
    expect(convertToChatCompletionsRequest(request({ promptCacheKey: 'k' }), groq)).not.toHaveProperty('prompt_cache_key');
  });
});
