import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../core/stream-part.js';
import type { TextResult } from '../core/text-result.js';
import { streamResult } from '../generation/stream-result.js';
import { collectStreamResult } from './collect-stream-result.js';

async function* partsOf(parts: StreamPart[]): AsyncIterable<StreamPart> {
  yield* parts;
}

async function collect(parts: StreamPart[]): Promise<{ stored: Array<{ result: TextResult; cost: bigint }>; passed: StreamPart[] }> {
  const stored: Array<{ result: TextResult; cost: bigint }> = [];
  const passed: StreamPart[] = [];
  for await (const part of collectStreamResult(partsOf(parts), (result, cost) => stored.push({ result, cost }))) passed.push(part);
  return { stored, passed };
}

describe('collectStreamResult', () => {
  const usage = { promptTokens: 3, completionTokens: 5 };
  const parts: StreamPart[] = [
    { type: 'start', providerResponseId: 'r1' },
    { type: 'reasoning-delta', text: 'think' },
    { type: 'reasoning-signature', signature: 'sig' },
    { type: 'text-delta', text: 'Hel' },
    { type: 'text-delta', text: 'lo' },
    { type: 'tool-call-start', index: 0, id: 'c1', name: 'f' },
    { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":' },
    { type: 'tool-call-delta', index: 0, argumentsDelta: '1}' },
    { type: 'finish', finishReason: 'tool_calls', usage, cost: 42n },
  ];

  it('passes every part on and assembles the answer, which replays as the same parts', async () => {
    const { stored, passed } = await collect(parts);
    expect(passed).toEqual(parts);
    expect(stored).toHaveLength(1);
    expect(stored[0].cost).toBe(42n);
    expect(stored[0].result.content).toEqual([
      { type: 'reasoning', text: 'think', signature: 'sig' },
      { type: 'text', text: 'Hello' },
      { type: 'tool-call', id: 'c1', name: 'f', arguments: '{"a":1}' },
    ]);
    const replayed: StreamPart[] = [];
    for await (const part of streamResult(stored[0].result, 42n)) replayed.push(part);
    expect(replayed.map((part) => part.type)).toEqual(['start', 'reasoning-delta', 'reasoning-signature', 'text-delta', 'tool-call-start', 'tool-call-delta', 'finish']);
  });

  it('stores nothing of a stream that failed or was cut before its finish', async () => {
    const failed = await collect([...parts.slice(0, 4), { type: 'error', error: { message: 'boom', code: 'upstream_error', status: 502 } }]);
    expect(failed.stored).toEqual([]);
    const cut: Array<{ result: TextResult; cost: bigint }> = [];
    for await (const part of collectStreamResult(partsOf(parts), (result, cost) => cut.push({ result, cost }))) if (part.type === 'text-delta') break;
    expect(cut).toEqual([]);
  });
});
