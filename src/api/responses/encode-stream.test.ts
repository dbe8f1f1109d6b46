import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.js';
import { createDefaultEcho } from './responses-echo.js';
import { encodeResponsesStream } from './encode-stream.js';

const meta = { id: 'gen_s1', model: 'anthropic/claude-sonnet-4', created: 1_700_000_000 };
const usage = { promptTokens: 10, completionTokens: 5 };

async function* partsOf(parts: StreamPart[], failure?: Error): AsyncGenerator<StreamPart> {
  yield* parts;
  if (failure) throw failure;
}

interface Event {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}

async function encode(parts: StreamPart[]): Promise<{ frames: string[]; events: Event[] }> {
  const frames: string[] = [];
  for await (const frame of encodeResponsesStream(partsOf(parts), meta, createDefaultEcho(), { clock: { now: () => new Date(1_700_000_009_000) } })) frames.push(frame);
  return { frames, events: frames.map(parseFrame) };
}

function parseFrame(frame: string): Event {
  const [eventLine, dataLine, ...rest] = frame.split('\n');
  expect(rest).toEqual(['', '']);
  const event = JSON.parse(dataLine.slice('data: '.length)) as Event;
  expect(eventLine).toBe(`event: ${event.type}`);
  return event;
}

describe('encodeResponsesStream', () => {
  it('streams a text answer with the full event sequence and increasing sequence numbers', async () => {
    const { events } = await encode([
      { type: 'start' },
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'finish', finishReason: 'stop', usage, cost: 2_000n },
    ]);
    expect(events.map((event) => event.type)).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
      'response.output_text.delta', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done',
      'response.output_item.done', 'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events[0].response).toMatchObject({ id: 'gen_s1', status: 'in_progress', output: [], usage: null });
    expect(events[4]).toEqual({ type: 'response.output_text.delta', item_id: 'msg_gen_s1_0', output_index: 0, content_index: 0, delta: 'Hel', logprobs: [], sequence_number: 4 });
    expect(events[6]).toMatchObject({ text: 'Hello', item_id: 'msg_gen_s1_0' });
    const completed = events[9].response as Record<string, unknown>;
    expect(completed).toMatchObject({
      status: 'completed', completed_at: 1_700_000_009,
      output: [{ id: 'msg_gen_s1_0', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello', annotations: [], logprobs: [] }] }],
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, cost: 0.000002 },
    });
  });

  it('streams reasoning as a summary, then text, then parallel function calls', async () => {
    const { events } = await encode([
      { type: 'reasoning-delta', text: 'Think' },
      { type: 'reasoning-delta', text: 'ing.' },
      { type: 'reasoning-signature', signature: 'sig-9' },
      { type: 'text-delta', text: 'Checking.' },
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'get_weather' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'get_time' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"Paris"}' },
      { type: 'finish', finishReason: 'tool_calls', usage, cost: 0n },
    ]);
    expect(events.map((event) => event.type)).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta', 'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done', 'response.reasoning_summary_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.output_item.added',
      'response.function_call_arguments.delta', 'response.function_call_arguments.delta', 'response.function_call_arguments.delta',
      'response.function_call_arguments.done', 'response.output_item.done', 'response.function_call_arguments.done', 'response.output_item.done',
      'response.completed',
    ]);
    expect(events[8].item).toEqual({ id: 'rs_gen_s1_0', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thinking.' }], encrypted_content: 'sig-9' });
    expect(events[15]).toMatchObject({ output_index: 2, item: { id: 'fc_gen_s1_2', type: 'function_call', status: 'in_progress', call_id: 'call_a', name: 'get_weather', arguments: '' } });
    expect(events[18]).toMatchObject({ item_id: 'fc_gen_s1_3', output_index: 3, delta: '{}' });
    expect(events[20]).toMatchObject({ item_id: 'fc_gen_s1_2', name: 'get_weather', arguments: '{"city":"Paris"}' });
    const output = (events[24].response as { output: Array<{ id: string }> }).output;
    expect(output.map((item) => item.id)).toEqual(['rs_gen_s1_0', 'msg_gen_s1_1', 'fc_gen_s1_2', 'fc_gen_s1_3']);
  });

  it('ends a truncated answer with response.incomplete and incomplete items', async () => {
    const { events } = await encode([{ type: 'text-delta', text: 'Once upon' }, { type: 'finish', finishReason: 'length', usage }]);
    const last = events.at(-1)!;
    expect(last.type).toBe('response.incomplete');
    expect(last.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, completed_at: null, output: [{ status: 'incomplete' }] });
    expect((last.response as { usage: Record<string, unknown> }).usage).not.toHaveProperty('cost');
  });

  it('closes open items and ends with response.failed on an error part', async () => {
    const { events } = await encode([
      { type: 'text-delta', text: 'Partial' },
      { type: 'error', error: { code: 'upstream_error', message: 'Provider connection reset', status: 502 } },
    ]);
    expect(events.slice(-4).map((event) => event.type)).toEqual([
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.failed',
    ]);
    expect(events.at(-1)!.response).toMatchObject({
      status: 'failed', error: { code: 'upstream_error', message: 'Provider connection reset' },
      output: [{ type: 'message', status: 'incomplete', content: [{ text: 'Partial' }] }],
    });
    expect(JSON.parse(JSON.stringify(events.at(-1)))).not.toHaveProperty('error');
  });

  it('writes nothing after the finish part', async () => {
    const { events } = await encode([{ type: 'finish', finishReason: 'stop', usage }, { type: 'text-delta', text: 'late' }]);
    expect(events.map((event) => event.type)).toEqual(['response.created', 'response.in_progress', 'response.completed']);
  });

  it('fails the response when the parts end without finish', async () => {
    const { events } = await encode([{ type: 'text-delta', text: 'cut' }]);
    expect(events.at(-1)).toMatchObject({ type: 'response.failed', response: { error: { code: 'upstream_error' } } });
  });

  it('ends the client stream and rethrows when the parts throw after events went out', async () => {
    const frames: string[] = [];
    const stream = encodeResponsesStream(partsOf([{ type: 'text-delta', text: 'x' }], new Error('boom')), meta, createDefaultEcho());
    await expect(async () => {
      for await (const frame of stream) frames.push(frame);
    }).rejects.toThrow('boom');
    expect(parseFrame(frames.at(-1)!)).toMatchObject({ type: 'response.failed', response: { error: { code: 'internal_error' } } });
  });

  it('writes nothing and rethrows when the parts throw before the first part', async () => {
    const frames: string[] = [];
    const stream = encodeResponsesStream(partsOf([], new Error('early')), meta, createDefaultEcho());
    await expect(async () => {
      for await (const frame of stream) frames.push(frame);
    }).rejects.toThrow('early');
    expect(frames).toEqual([]);
  });

  it('refuses a tool-call delta without its start', async () => {
    const frames: string[] = [];
    const stream = encodeResponsesStream(partsOf([{ type: 'start' }, { type: 'tool-call-delta', index: 3, argumentsDelta: '{}' }]), meta, createDefaultEcho());
    await expect(async () => {
      for await (const frame of stream) frames.push(frame);
    }).rejects.toThrow('index 3');
    expect(parseFrame(frames.at(-1)!).type).toBe('response.failed');
  });
});
