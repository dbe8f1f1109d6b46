import { describe, expect, it } from 'vitest';
import { catchGatewayError } from '../../errors/__fixtures__/catch-gateway-error.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { decodeInputItems } from './decode-input-items.js';

function refusal(input: unknown): GatewayError {
  return catchGatewayError(() => decodeInputItems(input));
}

describe('decodeInputItems: messages', () => {
  it('turns a string into one user message', () => {
    expect(decodeInputItems('Hello')).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }]);
  });

  it('decodes each role, with or without type: message', () => {
    expect(decodeInputItems([
      { role: 'system', content: 'S' },
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'D1' }, { type: 'input_text', text: 'D2' }] },
      { role: 'user', content: 'U' },
      { role: 'assistant', content: 'A' },
    ])).toEqual([
      { role: 'system', content: 'S' },
      { role: 'system', content: 'D1\nD2' },
      { role: 'user', content: [{ type: 'text', text: 'U' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'A' }] },
    ]);
  });

  it('decodes images by URL and by data URL, with detail', () => {
    const [message] = decodeInputItems([{
      role: 'user',
      content: [
        { type: 'input_text', text: 'What is this?' },
        { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'low' },
        { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0K', detail: 'auto' },
      ],
    }]);
    expect(message).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png' }, detail: 'low' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0K' }, detail: 'auto' },
      ],
    });
  });

  it('accepts an earlier output message sent back, with its ids, annotations and refusals', () => {
    expect(decodeInputItems([{
      id: 'msg_1', type: 'message', status: 'completed', role: 'assistant',
      content: [{ type: 'output_text', text: 'Sure.', annotations: [], logprobs: [] }, { type: 'refusal', refusal: 'Not that.' }],
    }])).toEqual([{ role: 'assistant', content: [{ type: 'text', text: 'Sure.' }, { type: 'text', text: 'Not that.' }] }]);
  });

  it('refuses file ids, files and bad image URLs with their path', () => {
    const fileId = refusal([{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1', detail: 'auto' }] }]);
    expect(fileId.status).toBe(400);
    expect(fileId.param).toBe('input[0].content[0].file_id');
    expect(refusal([{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }]).param).toBe('input[0].content[0].type');
    expect(refusal([{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x' }] }]).message).toBe("'input[0].content[0].image_url' must be an http(s) URL or a base64 data URL");
    expect(refusal([{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x', detail: 'original' }] }]).param).toBe('input[0].content[0].detail');
  });

  it('refuses malformed messages with their path', () => {
    expect(refusal([]).message).toBe("'input' must not be empty");
    expect(refusal(42).message).toBe("'input' must be an array");
    expect(refusal([{ role: 'tool', content: 'x' }]).param).toBe('input[0].role');
    expect(refusal([{ role: 'user' }]).message).toBe("'input[0].content' is required");
    expect(refusal([{ role: 'user', content: 'x', name: 'bob' }]).param).toBe('input[0].name');
    expect(refusal([{ role: 'system', content: [{ type: 'input_image', image_url: 'https://x' }] }]).param).toBe('input[0].content[0].type');
    expect(refusal([{ role: 'user', content: [{ type: 'output_text', text: 'x' }] }]).param).toBe('input[0].content[0].type');
    expect(refusal([{ content: 'x' }]).message).toBe("'input[0].type' is required");
    expect(refusal(['x']).message).toBe("'input[0]' must be an object");
  });

  it('refuses item kinds that need stored state or built-in tools', () => {
    expect(refusal([{ type: 'item_reference', id: 'msg_1' }]).message).toContain('continue with previous_response_id');
    expect(refusal([{ type: 'file_search_call', id: 'fs_1' }]).param).toBe('input[0].type');
  });
});

describe('decodeInputItems: function calls and outputs', () => {
  const history = [
    { role: 'user', content: 'Weather in Paris and Rome?' },
    { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
    { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
    { type: 'function_call_output', call_id: 'call_a', output: '18C' },
    { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: '21C' }] },
  ];

  it('joins consecutive calls into one assistant message and maps outputs to tool messages', () => {
    expect(decodeInputItems(history)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'tool-call', id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_a', toolName: 'get_weather', content: [{ type: 'text', text: '18C' }] },
      { role: 'tool', toolCallId: 'call_b', toolName: 'get_weather', content: [{ type: 'text', text: '21C' }] },
    ]);
  });

  it('keeps reasoning, text and calls of one model turn in one assistant message', () => {
    const messages = decodeInputItems([
      { role: 'user', content: 'Go' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Plan.' }], encrypted_content: 'sig-1' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Calling.', annotations: [] }] },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
    ]);
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Plan.', signature: 'sig-1' },
        { type: 'text', text: 'Calling.' },
        { type: 'tool-call', id: 'c1', name: 'f', arguments: '{}' },
      ],
    });
  });

  it('prefers reasoning_text content over the summary and skips empty reasoning items', () => {
    const messages = decodeInputItems([
      { role: 'user', content: 'Go' },
      { type: 'reasoning', id: 'rs_0', summary: [] },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'short' }], content: [{ type: 'reasoning_text', text: 'long' }] },
    ]);
    expect(messages).toHaveLength(2);
    expect(messages[1]).toEqual({ role: 'assistant', content: [{ type: 'reasoning', text: 'long' }] });
  });

  it('names the missing field of a function call or output', () => {
    expect(refusal([{ role: 'user', content: 'x' }, { role: 'user', content: 'y' }, { role: 'user', content: 'z' }, { type: 'function_call', name: 'f', arguments: '{}' }]).message)
      .toBe("'input[3].call_id' is required");
    expect(refusal([{ type: 'function_call', call_id: 'c', name: 'f' }]).message).toBe("'input[0].arguments' is required");
    expect(refusal([{ type: 'function_call', call_id: 'c', name: 'f', arguments: { a: 1 } }]).message).toBe("'input[0].arguments' must be a string");
    expect(refusal([{ type: 'function_call_output', call_id: 'c' }]).message).toBe("'input[0].output' is required");
    expect(refusal([{ type: 'function_call_output', output: 'x' }]).param).toBe('input[0].call_id');
    expect(refusal([{ type: 'reasoning', summary: [{ type: 'reasoning_text', text: 'x' }] }]).param).toBe('input[0].summary[0].type');
  });
});

describe('decodeInputItems: earlier web searches', () => {
  it('skips a web_search_call item sent back with the history, keeping the answer that used it', () => {
    const messages = decodeInputItems([
      { role: 'user', content: 'news?' },
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'news' } },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Here is the news.' }] },
    ]);
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Here is the news.' }] });
  });
});
