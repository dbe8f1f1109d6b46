import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.js';
import { jsonModeParts, jsonModeResult } from './emulate-json-mode.js';

const usage = { promptTokens: 10, completionTokens: 5 };

async function collect(parts: StreamPart[]): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const part of jsonModeParts((async function* () {
    yield* parts;
  })())) out.push(part);
  return out;
}

describe('JSON mode on Anthropic: the tool call becomes the answer', () => {
  it('turns the JSON tool call of a result into its text, ending as stop', () => {
    const result = jsonModeResult({ content: [{ type: 'tool-call', id: 't1', name: 'json_response', arguments: '{"a":1}' }], finishReason: 'tool_calls', usage });
    expect(result.content).toEqual([{ type: 'text', text: '{"a":1}' }]);
    expect(result.finishReason).toBe('stop');
  });

  it("keeps the client's own tool calls and their finish", () => {
    const result = jsonModeResult({ content: [{ type: 'tool-call', id: 't1', name: 'weather', arguments: '{}' }], finishReason: 'tool_calls', usage });
    expect(result.finishReason).toBe('tool_calls');
    expect(result.content[0]).toMatchObject({ type: 'tool-call', name: 'weather' });
  });

  it('streams the arguments as text and renumbers the other calls', async () => {
    const parts = await collect([
      { type: 'start' },
      { type: 'tool-call-start', index: 0, id: 't1', name: 'json_response' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '1}' },
      { type: 'finish', finishReason: 'tool_calls', usage },
    ]);
    expect(parts).toEqual([
      { type: 'start' },
      { type: 'text-delta', text: '{"a":' },
      { type: 'text-delta', text: '1}' },
      { type: 'finish', finishReason: 'stop', usage },
    ]);
    const mixed = await collect([
      { type: 'tool-call-start', index: 0, id: 't1', name: 'json_response' },
      { type: 'tool-call-start', index: 1, id: 't2', name: 'weather' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'finish', finishReason: 'tool_calls', usage },
    ]);
    expect(mixed).toEqual([
      { type: 'tool-call-start', index: 0, id: 't2', name: 'weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'finish', finishReason: 'tool_calls', usage },
    ]);
  });
});
