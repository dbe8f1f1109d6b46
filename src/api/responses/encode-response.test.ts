import { describe, expect, it } from 'vitest';
import type { TextResult } from '../../core/text-result.js';
import { createDefaultEcho } from './responses-echo.js';
import { encodeResponsesResponse } from './encode-response.js';

const meta = { id: 'gen_abc', model: 'openai/gpt-4o-mini', created: 1_700_000_000 };
const clock = { now: () => new Date(1_700_000_005_000) };
const usage = { promptTokens: 12, completionTokens: 30, cachedPromptTokens: 4, reasoningTokens: 10 };

function result(overrides: Partial<TextResult>): TextResult {
  return { content: [{ type: 'text', text: 'Hello' }], finishReason: 'stop', usage, ...overrides };
}

describe('encodeResponsesResponse', () => {
  it('builds a completed Response with a message item, usage and cost, and no output_text', () => {
    const response = encodeResponsesResponse(result({}), meta, 1_250_000n, createDefaultEcho(), { clock });
    expect(response).toEqual({
      id: 'gen_abc', object: 'response', created_at: 1_700_000_000, status: 'completed', background: false, completed_at: 1_700_000_005,
      error: null, incomplete_details: null, instructions: null, max_output_tokens: null, model: 'openai/gpt-4o-mini',
      output: [{ id: 'msg_gen_abc_0', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello', annotations: [], logprobs: [] }] }],
      parallel_tool_calls: true, previous_response_id: null, reasoning: { effort: null, summary: null }, store: false,
      temperature: 1, text: { format: { type: 'text' } }, tool_choice: 'auto', tools: [], top_p: 1,
      presence_penalty: 0, frequency_penalty: 0, top_logprobs: 0, max_tool_calls: null, truncation: 'disabled',
      usage: {
        input_tokens: 12, input_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 },
        output_tokens: 30, output_tokens_details: { reasoning_tokens: 10 }, total_tokens: 42, cost: 0.00125,
      },
      service_tier: 'default', safety_identifier: null, prompt_cache_key: null,
      metadata: {},
    });
    expect(response).not.toHaveProperty('output_text');
  });

  it('orders reasoning, message and function call items, joining adjacent text', () => {
    const response = encodeResponsesResponse(result({
      content: [
        { type: 'reasoning', text: 'Think.', signature: 'sig' },
        { type: 'text', text: 'Let me ' },
        { type: 'text', text: 'check.' },
        { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'call_2', name: 'get_time', arguments: '{}' },
      ],
      finishReason: 'tool_calls',
    }), meta, 0n, createDefaultEcho(), { clock });
    expect(response.output).toEqual([
      { id: 'rs_gen_abc_0', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Think.' }], encrypted_content: 'sig' },
      { id: 'msg_gen_abc_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check.', annotations: [], logprobs: [] }] },
      { id: 'fc_gen_abc_2', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'fc_gen_abc_3', type: 'function_call', status: 'completed', call_id: 'call_2', name: 'get_time', arguments: '{}' },
    ]);
    expect(response.status).toBe('completed');
  });

  it('reports length and content_filter as incomplete with the reason', () => {
    const truncated = encodeResponsesResponse(result({ finishReason: 'length' }), meta, 0n, createDefaultEcho(), { clock });
    expect(truncated).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, completed_at: null });
    expect(truncated.output[0]).toMatchObject({ status: 'incomplete' });
    const filtered = encodeResponsesResponse(result({ finishReason: 'content_filter' }), meta, 0n, createDefaultEcho(), { clock });
    expect(filtered.incomplete_details).toEqual({ reason: 'content_filter' });
  });

  it('reports an error finish as failed', () => {
    const failed = encodeResponsesResponse(result({ finishReason: 'error' }), meta, 0n, createDefaultEcho(), { clock });
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({ code: 'upstream_error', message: 'The provider ended the generation with an error.' });
  });

  it('repeats the echoed request fields', () => {
    const echo = {
      ...createDefaultEcho(),
      instructions: 'Be brief.', temperature: 0.3, top_p: 0.8, max_output_tokens: 100, parallel_tool_calls: false,
      tool_choice: 'required' as const, user: 'u-1', metadata: { k: 'v' }, reasoning: { effort: 'low' as const, summary: 'auto' as const },
      tools: [{ type: 'function' as const, name: 'f', description: null, parameters: null, strict: null }],
    };
    const response = encodeResponsesResponse(result({}), meta, 0n, echo, { clock });
    expect(response).toMatchObject({
      instructions: 'Be brief.', temperature: 0.3, top_p: 0.8, max_output_tokens: 100, parallel_tool_calls: false,
      tool_choice: 'required', user: 'u-1', metadata: { k: 'v' }, reasoning: { effort: 'low', summary: 'auto' }, tools: echo.tools,
    });
  });

  it('writes an empty output for an empty answer', () => {
    expect(encodeResponsesResponse(result({ content: [] }), meta, 0n, createDefaultEcho(), { clock }).output).toEqual([]);
  });
});
