import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/content.js';
import type { TextRequest } from '../../core/text-request.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { convertRequest } from './convert-request.js';
import { skipThoughtSignatureValidator } from './convert-messages.js';

function request(messages: Message[], extra: Partial<TextRequest> = {}): TextRequest {
  return { messages, stream: false, ...extra };
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

describe('convertRequest: messages', () => {
  it('moves system messages into systemInstruction and maps roles to user/model', () => {
    const body = convertRequest(request([
      { role: 'system', content: 'Be terse.' },
      user('Hi'),
      { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
      { role: 'system', content: 'Answer in French.' },
      user('Capital of Italy?'),
    ]));
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Be terse.' }, { text: 'Answer in French.' }] });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Hi' }] },
      { role: 'model', parts: [{ text: 'Hello.' }] },
      { role: 'user', parts: [{ text: 'Capital of Italy?' }] },
    ]);
    expect(body.generationConfig).toBeUndefined();
  });

  it('merges consecutive turns of one role, including tool results and the user turn after them', () => {
    const body = convertRequest(request([
      user('first'),
      user('second'),
      { role: 'assistant', content: [
        { type: 'tool-call', id: 'a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'b', name: 'get_time', arguments: '{}' },
      ] },
      { role: 'tool', toolCallId: 'a', content: [{ type: 'text', text: '18°C' }] },
      { role: 'tool', toolCallId: 'b', content: [{ type: 'text', text: '14:05' }] },
      user('thanks'),
    ]));
    expect(body.contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(body.contents[0].parts).toEqual([{ text: 'first' }, { text: 'second' }]);
    expect(body.contents[2].parts).toEqual([
      { functionResponse: { name: 'get_weather', response: { output: '18°C' } } },
      { functionResponse: { name: 'get_time', response: { output: '14:05' } } },
      { text: 'thanks' },
    ]);
  });

  it('converts user images: base64, data URL, and remote URL with a guessed MIME type', () => {
    const body = convertRequest(request([{ role: 'user', content: [
      { type: 'text', text: 'Compare these' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { kind: 'url', url: 'data:image/webp;base64,UklGRg==' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.gif?size=large' }, detail: 'high' },
    ] }]));
    expect(body.contents[0].parts).toEqual([
      { text: 'Compare these' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { inlineData: { mimeType: 'image/webp', data: 'UklGRg==' } },
      { fileData: { fileUri: 'https://example.com/cat.gif?size=large', mimeType: 'image/gif' } },
    ]);
  });

  it('names a tool result from its toolName, or from the earlier call with the same id (latest wins)', () => {
    const body = convertRequest(request([
      user('go'),
      { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'search', arguments: '{"q":"a"}' }] },
      { role: 'tool', toolCallId: 'call_1', content: [{ type: 'text', text: 'found a' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'fetch_page', arguments: '{"url":"u"}' }] },
      { role: 'tool', toolCallId: 'call_1', content: [{ type: 'text', text: 'page' }] },
      { role: 'tool', toolCallId: 'unknown-to-us', toolName: 'lookup', content: [{ type: 'text', text: 'x' }] },
    ]));
    const names = body.contents.flatMap((content) => content.parts).flatMap((part) => (part.functionResponse ? [part.functionResponse.name] : []));
    expect(names).toEqual(['search', 'fetch_page', 'lookup']);
  });

  it('sends JSON-object results as the response itself, errors under `error`, images after the response', () => {
    const body = convertRequest(request([
      { role: 'assistant', content: [
        { type: 'tool-call', id: 'a', name: 'stats', arguments: '{}' },
        { type: 'tool-call', id: 'b', name: 'stats', arguments: '{}' },
        { type: 'tool-call', id: 'c', name: 'chart', arguments: '{}' },
      ] },
      { role: 'tool', toolCallId: 'a', content: [{ type: 'text', text: ' {"mean": 4.5, "n": 10}' }] },
      { role: 'tool', toolCallId: 'b', isError: true, content: [{ type: 'text', text: '{"reason":"timeout"}' }] },
      { role: 'tool', toolCallId: 'c', content: [
        { type: 'text', text: '[1,2]' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
      ] },
    ]));
    expect(body.contents[1].parts).toEqual([
      { functionResponse: { name: 'stats', response: { mean: 4.5, n: 10 } } },
      { functionResponse: { name: 'stats', response: { error: '{"reason":"timeout"}' } } },
      { functionResponse: { name: 'chart', response: { output: '[1,2]' } } },
      { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
    ]);
  });

  it('puts a reasoning signature on the next part sent and drops reasoning text and unsigned reasoning', () => {
    const body = convertRequest(request([
      user('weather?'),
      { role: 'assistant', content: [
        { type: 'reasoning', text: 'I should call the tool.' },
        { type: 'reasoning', text: '', signature: 'SIG_CALL' },
        { type: 'tool-call', id: 'a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'b', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
      ] },
      { role: 'tool', toolCallId: 'a', content: [{ type: 'text', text: 'sunny' }] },
      { role: 'tool', toolCallId: 'b', content: [{ type: 'text', text: 'rain' }] },
      { role: 'assistant', content: [
        { type: 'text', text: 'Paris is sunny, Tokyo rainy.' },
        { type: 'reasoning', text: '', signature: 'SIG_TRAILING' },
      ] },
    ]));
    expect(body.contents[1].parts).toEqual([
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'SIG_CALL' },
      { functionCall: { name: 'get_weather', args: { city: 'Tokyo' } } },
    ]);
    // A signature Gemini sent on a trailing empty part goes back on the last part kept.
    expect(body.contents[3].parts).toEqual([{ text: 'Paris is sunny, Tokyo rainy.', thoughtSignature: 'SIG_TRAILING' }]);
  });

  it('drops an assistant turn that held only unsigned reasoning, merging the user turns around it', () => {
    const body = convertRequest(request([user('a'), { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }] }, user('b')]));
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'a' }, { text: 'b' }] }]);
  });

  it('signs unsigned first function calls with the documented skip value only when asked (Gemini 3)', () => {
    const messages: Message[] = [
      user('go'),
      { role: 'assistant', content: [
        { type: 'tool-call', id: 'a', name: 'f', arguments: '' },
        { type: 'tool-call', id: 'b', name: 'f', arguments: '{"x":1}' },
      ] },
    ];
    const signed = convertRequest(request(messages), { requireSignedFunctionCalls: true });
    expect(signed.contents[1].parts).toEqual([
      { functionCall: { name: 'f', args: {} }, thoughtSignature: skipThoughtSignatureValidator },
      { functionCall: { name: 'f', args: { x: 1 } } },
    ]);
    const plain = convertRequest(request(messages));
    expect(plain.contents[1].parts[0]).toEqual({ functionCall: { name: 'f', args: {} } });
  });
});

describe('convertRequest: tools and options', () => {
  it('declares tools with cleaned schemas and maps every tool choice', () => {
    const tools = [
      { name: 'get_weather', description: 'Weather for a city', parameters: {
        $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', additionalProperties: false,
        properties: { city: { type: 'string' } }, required: ['city'],
      } },
      { name: 'ping', parameters: { type: 'object', properties: {} } },
    ];
    const choices = [
      ['auto', { mode: 'AUTO' }],
      ['none', { mode: 'NONE' }],
      ['required', { mode: 'ANY' }],
      [{ type: 'tool', name: 'ping' }, { mode: 'ANY', allowedFunctionNames: ['ping'] }],
    ] as const;
    for (const [toolChoice, expected] of choices) {
      const body = convertRequest(request([user('x')], { tools, toolChoice }));
      expect(body.toolConfig).toEqual({ functionCallingConfig: expected });
      expect(body.tools).toEqual([{ functionDeclarations: [
        { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
        { name: 'ping' },
      ] }]);
    }
  });

  it('maps sampling, length, stop and JSON output options into generationConfig', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const body = convertRequest(request([user('x')], {
      temperature: 0.2, topP: 0.9, topK: 40, maxTokens: 512, stop: ['END'], seed: 7, presencePenalty: 0.5, frequencyPenalty: 0.25,
      responseFormat: { type: 'json_schema', name: 'answer', schema, strict: true },
    }));
    expect(body.generationConfig).toEqual({
      temperature: 0.2, topP: 0.9, topK: 40, maxOutputTokens: 512, stopSequences: ['END'], seed: 7, presencePenalty: 0.5, frequencyPenalty: 0.25,
      responseMimeType: 'application/json', responseJsonSchema: schema,
    });
    expect(convertRequest(request([user('x')], { responseFormat: { type: 'json_object' } })).generationConfig).toEqual({ responseMimeType: 'application/json' });
    expect(convertRequest(request([user('x')], { responseFormat: { type: 'text' }, stop: [] })).generationConfig).toBeUndefined();
  });

  it('asks for thoughts with a budget from reasoning.maxTokens, else from the effort', () => {
    const thinking = (reasoning: TextRequest['reasoning']) => convertRequest(request([user('x')], { reasoning })).generationConfig?.thinkingConfig;
    expect(thinking({ maxTokens: 3000, effort: 'high' })).toEqual({ thinkingBudget: 3000, includeThoughts: true });
    expect(thinking({ effort: 'minimal' })).toEqual({ thinkingBudget: 0, includeThoughts: true });
    expect(thinking({ effort: 'low' })).toEqual({ thinkingBudget: 1024, includeThoughts: true });
    expect(thinking({ effort: 'medium' })).toEqual({ thinkingBudget: 8192, includeThoughts: true });
    expect(thinking({ effort: 'high' })).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    expect(thinking({})).toEqual({ includeThoughts: true });
  });
});

describe('convertRequest: refusals', () => {
  function refusal(run: () => unknown): GatewayError {
    try {
      run();
    } catch (error) {
      if (error instanceof GatewayError) return error;
      throw error;
    }
    throw new Error('expected a GatewayError');
  }

  it('takes hints it has no field for, and refuses what only Anthropic can honour, naming it', () => {
    // An end-user id (metadata.user_id from Claude Code) is a hint: Gemini has no field for it.
    expect(JSON.stringify(convertRequest(request([user('x')], { user: 'u-1' })))).not.toContain('u-1');
    const anthropic = { body: { context_management: { edits: [] } }, betas: ['context-management-2025-06-27'] };
    expect(JSON.stringify(convertRequest(request([user('x')], { anthropic })))).not.toContain('context');
    expect(refusal(() => convertRequest(request([user('x')], { anthropic: { body: { container: 'c' }, betas: [] } })))).toMatchObject({ code: 'invalid_request', param: 'container' });
    expect(convertRequest(request([user('x')], { reasoning: { adaptive: true, display: 'omitted' } })).generationConfig?.thinkingConfig).toEqual({ thinkingBudget: -1, includeThoughts: false });
    // parallel_tool_calls is a hint: Gemini has no switch, and both values reach it unchanged.
    expect(convertRequest(request([user('x')], { parallelToolCalls: false }))).not.toHaveProperty('toolConfig');
    expect(() => convertRequest(request([user('x')], { parallelToolCalls: true }))).not.toThrow();
  });

  it('refuses tool calls whose arguments are not a JSON object', () => {
    const withArguments = (text: string) => request([{ role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'f', arguments: text }] }]);
    expect(refusal(() => convertRequest(withArguments('{"a":')))).toMatchObject({ code: 'invalid_request', status: 400, param: 'messages' });
    expect(refusal(() => convertRequest(withArguments('[1]'))).message).toContain('JSON object');
  });

  it('refuses a tool result that names no function and answers no known call', () => {
    const error = refusal(() => convertRequest(request([{ role: 'tool', toolCallId: 'ghost', content: [{ type: 'text', text: 'x' }] }])));
    expect(error.message).toContain("'ghost'");
  });

  it('refuses image data URLs that are not base64', () => {
    const error = refusal(() => convertRequest(request([{ role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'data:image/svg+xml,<svg/>' } }] }])));
    expect(error.code).toBe('invalid_request');
  });
});

describe('convertRequest: hosted web search', () => {
  it('grounds the answer with Google Search next to the functions', () => {
    const body = convertRequest(request([user('x')], { tools: [{ name: 'f', parameters: { type: 'object', properties: {} } }], webSearch: { contextSize: 'low' } }));
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: 'f' }] }, { googleSearch: {} }]);
  });

  it('refuses a domain filter, which googleSearch has no field for in the Gemini API, rather than search every site', () => {
    for (const webSearch of [{ allowedDomains: ['example.com'] }, { blockedDomains: ['example.com'] }]) {
      expect(() => convertRequest(request([user('x')], { webSearch }))).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'web_search' }));
    }
  });
});

describe('convertRequest: what a Messages client sent only for Claude', () => {
  it('sends nothing for between_tools (thinking off), block_binding or task_budget', () => {
    const body = convertRequest(request([user('x')], { anthropic: { body: {}, betas: [], betweenTools: true, blockBinding: {}, taskBudget: { type: 'tokens', total: 20000 } } }));
    expect(body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] });
  });

  it('sends no thinkingConfig for thinking disabled, whatever the effort beside it', () => {
    const body = convertRequest(request([user('x')], { anthropic: { body: {}, betas: [], thinkingDisabled: true, effort: 'max' } }));
    expect(body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] });
  });

  it.each([['summarized', true], ['updates', true], ['omitted', false]] as const)('takes thinking.display %s as includeThoughts: %s', (display, includeThoughts) => {
    expect(convertRequest(request([user('x')], { reasoning: { adaptive: true, display } })).generationConfig?.thinkingConfig).toEqual({ thinkingBudget: -1, includeThoughts });
  });
});
