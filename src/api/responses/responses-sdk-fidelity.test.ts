import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.js';
import type { TextResult } from '../../core/text-result.js';
import type { DecodedTextCall } from '../shared/text-call.js';
import { decodeResponsesRequest } from './decode-request.js';
import { encodeResponsesResponse } from './encode-response.js';
import { encodeResponsesStream } from './encode-stream.js';
import type { ResponseObject } from './responses-wire.js';

/**
 * The official `openai` SDK against our pure functions, without a network: the SDK's request
 * body goes through our decoder, and our encoders' output goes back through the SDK's parsers
 * and stream helpers. If the SDK can tell us from OpenAI, these tests see it.
 */

const meta = { id: 'resp_gw1', model: 'openai/gpt-4o-mini', created: 1_700_000_000 };
const usage = { promptTokens: 21, completionTokens: 9, cachedPromptTokens: 5 };

type Answer = { json: TextResult } | { stream: StreamPart[] };

function createFakeGateway(answers: Answer[]) {
  const calls: DecodedTextCall[] = [];
  const client = new OpenAI({
    apiKey: 'x',
    baseURL: 'http://sdk.test/v1',
    maxRetries: 0,
    fetch: async (url, init) => {
      expect(String(url)).toBe('http://sdk.test/v1/responses');
      const { call, echo } = decodeResponsesRequest(JSON.parse(String(init?.body)) as Record<string, unknown>);
      calls.push(call);
      const answer = answers.shift();
      if (!answer) throw new Error('no scripted answer left');
      if ('json' in answer) {
        const body = encodeResponsesResponse(answer.json, meta, 3_500n, echo, { clock: { now: () => new Date(1_700_000_002_000) } });
        return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
      }
      return streamResponse(encodeResponsesStream(toAsync(answer.stream), meta, echo));
    },
  });
  return { client, calls };
}

async function* toAsync(parts: StreamPart[]): AsyncGenerator<StreamPart> {
  yield* parts;
}

function streamResponse(frames: AsyncGenerator<string>): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await frames.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

describe('openai SDK fidelity: non-streaming', () => {
  it('sends a request we decode, and reads our Response with output_text and usage', async () => {
    const { client, calls } = createFakeGateway([{ json: { content: [{ type: 'text', text: 'Hello there' }], finishReason: 'stop', usage } }]);
    const response = await client.responses.create({
      model: 'openai/gpt-4o-mini', instructions: 'Be kind.', input: 'Hi', temperature: 0.5, max_output_tokens: 64, metadata: { trace: 't1' }, store: false,
    });
    expect(calls[0].request.messages).toEqual([
      { role: 'system', content: 'Be kind.' },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
    ]);
    expect(calls[0].parameters.map((parameter) => parameter.name)).toEqual(['max_tokens', 'temperature']);
    expect(response.id).toBe('resp_gw1');
    expect(response.output_text).toBe('Hello there');
    expect(response.status).toBe('completed');
    expect(response).toMatchObject({ instructions: 'Be kind.', temperature: 0.5, max_output_tokens: 64, metadata: { trace: 't1' } });
    expect(response.usage).toEqual({
      input_tokens: 21, input_tokens_details: { cached_tokens: 5, cache_write_tokens: 0 },
      output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 30, cost: 0.0000035,
    });
  });

  it('round-trips a function call: output items sent back as input decode to a tool turn', async () => {
    const { client, calls } = createFakeGateway([
      { json: { content: [{ type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }], finishReason: 'tool_calls', usage } },
      { json: { content: [{ type: 'text', text: 'It is 18C in Paris.' }], finishReason: 'stop', usage } },
    ]);
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.responses.create({ model: 'openai/gpt-4o-mini', input, tools: [weatherTool], tool_choice: 'auto' });
    const calls0 = first.output.filter((item) => item.type === 'function_call');
    expect(calls0).toEqual([{ id: 'fc_resp_gw1_0', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(first.output_text).toBe('');
    expect(first.tools).toEqual([weatherTool]);

    // Users send output items back as input (OpenAI's function-calling guide); the SDK's types need a cast.
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: calls0[0].call_id, output: '{"temp_c":18}' });
    const second = await client.responses.create({ model: 'openai/gpt-4o-mini', input, tools: [weatherTool] });
    expect(second.output_text).toBe('It is 18C in Paris.');
    expect(calls[1].request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', toolCallId: 'call_1', toolName: 'get_weather', content: [{ type: 'text', text: '{"temp_c":18}' }] },
    ]);
    expect(calls[1].request.tools).toEqual([{ name: 'get_weather', description: weatherTool.description, parameters: weatherTool.parameters, strict: true }]);
  });

  it('produces an object the SDK types accept', () => {
    const encoded: ResponseObject = encodeResponsesResponse(
      { content: [{ type: 'reasoning', text: 'r' }, { type: 'text', text: 't' }, { type: 'tool-call', id: 'c', name: 'n', arguments: '{}' }], finishReason: 'stop', usage },
      meta, 0n, decodeResponsesRequest({ model: 'm', input: 'x', tools: [weatherTool] }).echo,
    );
    // `output_text` is computed by the SDK; `error` and `usage` are widened by our types only.
    const typed: Omit<OpenAI.Responses.Response, 'output_text' | 'error' | 'usage'> = encoded;
    const typedUsage: OpenAI.Responses.ResponseUsage = encoded.usage!;
    expect(typed.output).toHaveLength(3);
    expect(typedUsage.total_tokens).toBe(30);
  });
});

describe('openai SDK fidelity: streaming', () => {
  const toolTurn: StreamPart[] = [
    { type: 'start', providerModel: 'gpt-4o-mini' },
    { type: 'reasoning-delta', text: 'User wants ' },
    { type: 'reasoning-delta', text: 'weather.' },
    { type: 'text-delta', text: 'Let me ' },
    { type: 'text-delta', text: 'check.' },
    { type: 'tool-call-start', index: 0, id: 'call_p', name: 'get_weather' },
    { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
    { type: 'tool-call-delta', index: 0, argumentsDelta: '"Paris"}' },
    { type: 'finish', finishReason: 'tool_calls', usage: { ...usage, reasoningTokens: 4 }, cost: 1_000n },
  ];

  it('yields typed events from create({stream: true}) in order, ending with the full response', async () => {
    const { client, calls } = createFakeGateway([{ stream: toolTurn }]);
    const stream = await client.responses.create({ model: 'openai/gpt-4o-mini', input: 'Weather in Paris?', tools: [weatherTool], stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(calls[0].request.stream).toBe(true);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events[0].type).toBe('response.created');
    const last = events.at(-1)!;
    if (last.type !== 'response.completed') throw new Error(`ended with ${last.type}`);
    expect(last.response.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(last.response.usage).toMatchObject({ output_tokens_details: { reasoning_tokens: 4 }, cost: 0.000001 });
  });

  it('drives the stream helper: deltas with snapshots, finalResponse with text, calls and usage', async () => {
    const { client } = createFakeGateway([{ stream: toolTurn }]);
    const stream = client.responses.stream({ model: 'openai/gpt-4o-mini', input: 'Weather in Paris?', tools: [weatherTool] });
    const textSnapshots: string[] = [];
    const argumentSnapshots: string[] = [];
    const summaries: string[] = [];
    stream.on('response.output_text.delta', (event) => textSnapshots.push(event.snapshot));
    stream.on('response.function_call_arguments.delta', (event) => argumentSnapshots.push(event.snapshot));
    stream.on('response.reasoning_summary_text.done', (event) => summaries.push(event.text));
    const final = await stream.finalResponse();
    expect(textSnapshots).toEqual(['Let me ', 'Let me check.']);
    expect(argumentSnapshots).toEqual(['{"city":', '{"city":"Paris"}']);
    expect(summaries).toEqual(['User wants weather.']);
    expect(final.output_text).toBe('Let me check.');
    const call = final.output.find((item) => item.type === 'function_call');
    // A strict tool makes the SDK parse the arguments of a completed response.
    expect(call).toMatchObject({ call_id: 'call_p', name: 'get_weather', arguments: '{"city":"Paris"}', parsed_arguments: { city: 'Paris' } });
    expect(final.usage).toMatchObject({ input_tokens: 21, output_tokens: 9, total_tokens: 30, cost: 0.000001 });
    expect(final.status).toBe('completed');
  });

  it('lets the stream helper finish on response.incomplete', async () => {
    const { client } = createFakeGateway([{ stream: [{ type: 'text-delta', text: 'Once' }, { type: 'finish', finishReason: 'length', usage }] }]);
    const final = await client.responses.stream({ model: 'openai/gpt-4o-mini', input: 'Story', max_output_tokens: 1 }).finalResponse();
    expect(final.status).toBe('incomplete');
    expect(final.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(final.output_text).toBe('Once');
  });

  it('reports an in-band failure as a failed response, not a thrown SDK error', async () => {
    const { client } = createFakeGateway([{
      stream: [{ type: 'text-delta', text: 'Part' }, { type: 'error', error: { code: 'upstream_error', message: 'Provider connection reset', status: 502 } }],
    }]);
    const stream = client.responses.stream({ model: 'openai/gpt-4o-mini', input: 'Hi' });
    const failures: string[] = [];
    stream.on('response.failed', (event) => failures.push(event.response.error?.message ?? ''));
    const final = await stream.finalResponse();
    expect(failures).toEqual(['Provider connection reset']);
    expect(final.status).toBe('failed');
    expect(final.error).toEqual({ code: 'upstream_error', message: 'Provider connection reset' });
    expect(final.output_text).toBe('Part');
  });

  it('accepts finalResponse() output items sent back as the next input', async () => {
    const { client, calls } = createFakeGateway([{ stream: toolTurn }, { json: { content: [{ type: 'text', text: 'Sunny.' }], finishReason: 'stop', usage } }]);
    const final = await client.responses.stream({ model: 'openai/gpt-4o-mini', input: 'Weather?', tools: [weatherTool] }).finalResponse();
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather?' }, ...(final.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: 'call_p', output: 'sunny' }];
    await client.responses.create({ model: 'openai/gpt-4o-mini', input, tools: [weatherTool] });
    expect(calls[1].request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'User wants weather.' },
          { type: 'text', text: 'Let me check.' },
          { type: 'tool-call', id: 'call_p', name: 'get_weather', arguments: '{"city":"Paris"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_p', toolName: 'get_weather', content: [{ type: 'text', text: 'sunny' }] },
    ]);
  });
});
