import { describe, expect, it } from 'vitest';
import { catchGatewayError } from '../../errors/__fixtures__/catch-gateway-error.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { decodeMessagesRequest } from './decode-request.js';

function decodeMessages(messages: unknown[]) {
  return decodeMessagesRequest({ model: 'a/b', max_tokens: 100, messages }).request.messages;
}

function refusal(messages: unknown[]): GatewayError {
  return catchGatewayError(() => decodeMessages(messages));
}

describe('Messages content', () => {
  it('decodes user text and images from base64 and url sources', () => {
    expect(decodeMessages([{
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?', cache_control: { type: 'ephemeral' } },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
      ],
    }])).toEqual([{
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
      ],
    }]);
  });

  it('decodes an assistant turn with thinking, redacted thinking, text and tool use', () => {
    expect(decodeMessages([
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Use the tool.', signature: 'sig-1' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'Checking.', citations: null },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' }, caller: { type: 'direct' } },
        ],
      },
    ])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Use the tool.', signature: 'sig-1' },
        { type: 'reasoning', text: '', redactedData: 'opaque' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
    });
  });

  it('turns tool_result blocks into tool messages placed before the rest of the user turn', () => {
    const messages = decodeMessages([
      { role: 'user', content: 'Weather and time?' },
      { role: 'assistant', content: [
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
        { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
      ] },
      { role: 'user', content: [
        { type: 'text', text: 'Here you go.' },
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '3°C', cache_control: { type: 'ephemeral' } },
        { type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: [
          { type: 'text', text: 'clock broken' },
          { type: 'image', source: { type: 'url', url: 'https://example.com/clock.png' } },
        ] },
        { type: 'tool_result', tool_use_id: 'toolu_9' },
      ] },
    ]);
    expect(messages.slice(2)).toEqual([
      { role: 'tool', toolCallId: 'toolu_1', toolName: 'get_weather', content: [{ type: 'text', text: '3°C' }] },
      {
        role: 'tool', toolCallId: 'toolu_2', toolName: 'get_time', isError: true,
        content: [{ type: 'text', text: 'clock broken' }, { type: 'image', source: { kind: 'url', url: 'https://example.com/clock.png' } }],
      },
      { role: 'tool', toolCallId: 'toolu_9', content: [] },
      { role: 'user', content: [{ type: 'text', text: 'Here you go.' }] },
    ]);
  });

  it('emits no empty user message when a turn holds only tool results', () => {
    const messages = decodeMessages([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] }]);
    expect(messages).toEqual([{ role: 'tool', toolCallId: 't', content: [{ type: 'text', text: 'ok' }] }]);
  });

  it('accepts string assistant content and inline system messages', () => {
    expect(decodeMessages([
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Answer in French.' },
      { role: 'assistant', content: 'Bonjour' },
    ])).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'system', content: 'Answer in French.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Bonjour' }] },
    ]);
  });

  it.each([
    [[{ role: 'user', content: [{ type: 'document', source: {} }] }], 'messages[0].content[0].type'],
    [[{ role: 'user', content: [{ type: 'tool_use', id: 'x', name: 'f', input: {} }] }], 'messages[0].content[0].type'],
    [[{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'x' }] }], 'messages[0].content[0].type'],
    [[{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }], 'messages[0].content[0].source.type'],
    [[{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'search_result' }] }] }], 'messages[0].content[0].content[0].type'],
    [[{ role: 'user', content: [{ type: 'text', text: 'x', citations: [{ type: 'char_location' }] }] }], 'messages[0].content[0].citations'],
    [[{ role: 'user', content: 'x', name: 'bob' }], 'messages[0].name'],
  ])('refuses unsupported blocks, naming them %#', (messages, param) => {
    const error = refusal(messages);
    expect(error.param).toBe(param);
    expect(error.message).toContain(`Unsupported parameter: '${param}'`);
  });

  it.each([
    [[{ role: 'tool', content: 'x' }], "'messages[0].role' must be one of user, assistant, system"],
    [[{ role: 'user', content: 5 }], "'messages[0].content' must be a string or an array of content blocks"],
    [[{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'x' } }] }], "'messages[0].content[0].source.media_type' must be one of image/jpeg, image/png, image/gif, image/webp"],
    [[{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'file:///etc/passwd' } }] }], "'messages[0].content[0].source.url' must be an http(s) URL"],
    [[{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: '{}' }] }], "'messages[0].content[0].input' must be an object"],
    [[{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }], "'messages[0].content[0].signature' must be a string"],
    [[{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {}, caller: { type: 'code_execution_20250825' } }] }], "'messages[0].content[0].caller' must be {\"type\": \"direct\"}: tool calls made by server tools are not supported"],
    [[{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', is_error: 'yes' }] }], "'messages[0].content[0].is_error' must be a boolean"],
  ])('refuses malformed messages %#', (messages, message) => {
    expect(refusal(messages)).toMatchObject({ code: 'invalid_request', message });
  });
});
