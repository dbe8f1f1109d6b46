import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { decodeGeminiRequest } from './decode-request.js';

const user = (text: string) => ({ role: 'user', parts: [{ text }] });

function refusal(body: Record<string, unknown>): GatewayError {
  try {
    decodeGeminiRequest(body, 'acme/gem', false);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('decodeGeminiRequest', () => {
  it('reads the model from the URL, the system instruction and the turns', () => {
    const { route, request } = decodeGeminiRequest({ systemInstruction: { parts: [{ text: 'Be brief' }, { text: 'Be kind' }] }, contents: [user('hi')], models: ['acme/other'] }, 'acme/gem', true);
    expect(route).toMatchObject({ model: 'acme/gem', fallbackModels: ['acme/other'] });
    expect(request.messages).toEqual([
      { role: 'system', content: 'Be brief\nBe kind' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
    expect(request.stream).toBe(true);
  });

  it('gives calls without ids their place in the conversation, and answers them by name in order', () => {
    const { request } = decodeGeminiRequest(
      {
        contents: [
          user('weather twice'),
          { role: 'model', parts: [{ functionCall: { name: 'weather', args: { city: 'A' } } }, { functionCall: { name: 'weather', args: { city: 'B' } } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { output: 'a' } } }, { functionResponse: { name: 'weather', response: { error: 'b failed' } } }, { text: 'and?' }] },
        ],
      },
      'acme/gem',
      false,
    );
    expect(request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'call_0', name: 'weather', arguments: '{"city":"A"}' },
          { type: 'tool-call', id: 'call_1', name: 'weather', arguments: '{"city":"B"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_0', toolName: 'weather', content: [{ type: 'text', text: '{"output":"a"}' }] },
      { role: 'tool', toolCallId: 'call_1', toolName: 'weather', content: [{ type: 'text', text: '{"error":"b failed"}' }], isError: true },
      { role: 'user', content: [{ type: 'text', text: 'and?' }] },
    ]);
  });

  it('matches a response to its call by id, and by name when the id is the client’s own', () => {
    const { request } = decodeGeminiRequest(
      {
        contents: [
          user('go'),
          { role: 'model', parts: [{ functionCall: { id: 'call_x', name: 'a', args: {} } }, { functionCall: { name: 'b', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { id: 'b-123-cli', name: 'b', response: {} } }, { functionResponse: { id: 'call_x', name: 'a', response: {} } }] },
        ],
      },
      'acme/gem',
      false,
    );
    expect(request.messages.slice(2).map((message) => (message.role === 'tool' ? message.toolCallId : message.role))).toEqual(['call_1', 'call_x']);
  });

  it('reads thought parts as reasoning and Gemini’s untagged signatures as tagged Gemini ones; others stay as tagged', () => {
    const { request } = decodeGeminiRequest(
      {
        contents: [
          user('q'),
          { role: 'model', parts: [{ text: 'thinking', thought: true }, { text: 'answer', thoughtSignature: 'SIG' }] },
          user('q2'),
          { role: 'model', parts: [{ text: 'claude thinks', thought: true, thoughtSignature: 'anthropic:CLAUDE' }, { text: 'ok' }] },
          user('q3'),
        ],
      },
      'acme/gem',
      false,
    );
    expect(request.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'reasoning', text: 'thinking', signature: 'gemini:SIG' }, { type: 'text', text: 'answer' }] });
    expect(request.messages[3]).toEqual({ role: 'assistant', content: [{ type: 'reasoning', text: 'claude thinks', signature: 'anthropic:CLAUDE' }, { type: 'text', text: 'ok' }] });
  });

  it('reads images, and refuses other media by name', () => {
    const { request } = decodeGeminiRequest({ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }, { fileData: { fileUri: 'https://x.test/a.jpg', mimeType: 'image/jpeg' } }] }] }, 'acme/gem', false);
    expect(request.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
        { type: 'image', source: { kind: 'url', url: 'https://x.test/a.jpg' } },
      ],
    });
    expect(refusal({ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'audio/wav', data: 'AAAA' } }] }] }).param).toBe('contents[0].parts[0].inlineData.mimeType');
    expect(refusal({ contents: [{ role: 'user', parts: [{ executableCode: { code: 'x' } }] }] }).param).toBe('contents[0].parts[0].executableCode');
  });

  it('reads function declarations in both schema dialects, and the calling mode', () => {
    const { request, parameters } = decodeGeminiRequest(
      {
        contents: [user('go')],
        tools: [
          {
            functionDeclarations: [
              { name: 'a', parameters: { type: 'OBJECT', properties: { n: { type: 'INTEGER', nullable: true }, tags: { type: 'ARRAY', items: { type: 'STRING' } } }, required: ['n'], propertyOrdering: ['n', 'tags'] } },
              { name: 'b', parametersJsonSchema: { type: 'object', properties: { s: { type: 'string' } } } },
            ],
          },
          { googleSearch: {} },
        ],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['b'] } },
      },
      'acme/gem',
      false,
    );
    expect(request.tools?.[0].parameters).toEqual({ type: 'object', properties: { n: { type: ['integer', 'null'] }, tags: { type: 'array', items: { type: 'string' } } }, required: ['n'] });
    expect(request.tools?.[1].parameters).toEqual({ type: 'object', properties: { s: { type: 'string' } } });
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'b' });
    expect(request.webSearch).toEqual({});
    expect(parameters.map((parameter) => [parameter.name, parameter.preference ?? false])).toEqual([['tools', false], ['web_search', true], ['tool_choice', false]]);
  });

  it('offers only the allowed functions when ANY allows several', () => {
    const tools = [{ functionDeclarations: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }];
    const { request } = decodeGeminiRequest({ contents: [user('go')], tools, toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['a', 'c'] } } }, 'acme/gem', false);
    expect(request.tools?.map((tool) => tool.name)).toEqual(['a', 'c']);
    expect(request.toolChoice).toBe('required');
  });

  it('maps thinking budgets and levels onto reasoning, as a preference routing does not require', () => {
    const reasoning = (thinkingConfig: unknown) => {
      const call = decodeGeminiRequest({ contents: [user('q')], generationConfig: { thinkingConfig } }, 'acme/gem', false);
      const preferred = call.request.reasoning ? [{ name: 'reasoning', field: 'generationConfig.thinkingConfig', preference: true }] : [];
      expect(call.parameters).toEqual(preferred);
      return call.request.reasoning;
    };
    expect(reasoning({ thinkingBudget: 0 })).toBeUndefined();
    expect(reasoning({ thinkingBudget: -1, includeThoughts: true })).toEqual({ adaptive: true, display: 'summarized' });
    expect(reasoning({ thinkingBudget: 8192 })).toEqual({ maxTokens: 8192, effort: 'medium', display: 'omitted' });
    expect(reasoning({ thinkingLevel: 'HIGH', includeThoughts: true })).toEqual({ effort: 'high', display: 'summarized' });
  });

  it('reads structured output options into a response format', () => {
    const format = (generationConfig: Record<string, unknown>) => decodeGeminiRequest({ contents: [user('q')], generationConfig }, 'acme/gem', false).request.responseFormat;
    expect(format({ responseMimeType: 'application/json' })).toEqual({ type: 'json_object' });
    expect(format({ responseMimeType: 'application/json', responseJsonSchema: { type: 'object' } })).toEqual({ type: 'json_schema', name: 'response', schema: { type: 'object' } });
    expect(format({ responseMimeType: 'application/json', responseSchema: { type: 'STRING', enum: ['a'] } })).toEqual({ type: 'json_schema', name: 'response', schema: { type: 'string', enum: ['a'] } });
    expect(format({ responseMimeType: 'text/plain' })).toBeUndefined();
    expect(refusal({ contents: [user('q')], generationConfig: { responseJsonSchema: { type: 'object' } } }).param).toBe('generationConfig.responseMimeType');
  });

  it('reads the sampling fields, and refuses a body model that is not the URL’s', () => {
    const { request, parameters } = decodeGeminiRequest(
      { model: 'models/acme/gem', contents: [user('q')], generationConfig: { temperature: 0.2, topP: 0.9, topK: 40, maxOutputTokens: 100, stopSequences: ['x'], seed: 7 } },
      'acme/gem',
      false,
    );
    expect(request).toMatchObject({ temperature: 0.2, topP: 0.9, topK: 40, maxTokens: 100, stop: ['x'], seed: 7 });
    expect(parameters.map((parameter) => [parameter.field, parameter.preference ?? false])).toEqual([
      ['generationConfig.temperature', false],
      ['generationConfig.topP', false],
      ['generationConfig.topK', true],
      ['generationConfig.stopSequences', false],
      ['generationConfig.seed', false],
    ]);
    expect(refusal({ model: 'acme/other', contents: [user('q')] }).param).toBe('model');
  });
});

describe('empty turns', () => {
  it('leaves out a model turn with nothing in it', () => {
    const { request } = decodeGeminiRequest({ contents: [user('a'), { role: 'model', parts: [{ text: '' }] }, user('b')] }, 'acme/gem', false);
    expect(request.messages.map((message) => message.role)).toEqual(['user', 'user']);
  });
});
