import { describe, expect, it } from 'vitest';
import { MESSAGE_OVERHEAD_TOKENS, TOOL_CALL_TOKENS } from './count-tokens.js';
import { planReply } from './plan-reply.js';
import type { SimulatedRequest } from './protocol-adapter.js';

function request(overrides: Partial<SimulatedRequest> = {}): SimulatedRequest {
  return {
    protocol: 'openai',
    model: 'test-model',
    stream: false,
    messages: [
      { role: 'system', text: 'be brief' },
      { role: 'user', text: 'alpha beta gamma' },
    ],
    tools: [],
    toolChoice: { type: 'auto' },
    parallelToolCalls: true,
    stopSequences: [],
    includeStreamUsage: false,
    ...overrides,
  };
}

const weather = { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const time = { name: 'get_time', parameters: { type: 'object', properties: {} } };

describe('planReply text', () => {
  it('says who replies, echoes the last message and has exactly replyTokens words', () => {
    const reply = planReply(request(), 10);
    expect(reply.text).toBe('Simulated reply from test-model: alpha beta gamma alpha beta gamma');
    expect(reply.pieces).toHaveLength(10);
    expect(reply.pieces.join('')).toBe(reply.text);
    expect(reply).toMatchObject({ finish: 'stop', completionTokens: 10, promptTokens: 5 + 2 * MESSAGE_OVERHEAD_TOKENS });
  });

  it('does not echo directives', () => {
    const reply = planReply(request({ messages: [{ role: 'user', text: 'alpha [[sim:latency=1]]' }] }), 6);
    expect(reply.text).toBe('Simulated reply from test-model: alpha alpha');
  });

  it('stops before the first stop sequence found in the reply', () => {
    const reply = planReply(request({ stopSequences: ['zzz', 'gamma'] }), 16);
    expect(reply).toMatchObject({
      text: 'Simulated reply from test-model: alpha beta',
      finish: 'stop_sequence',
      stopSequence: 'gamma',
      completionTokens: 6,
    });
  });

  it('truncates at maxTokens, which wins over a later stop sequence', () => {
    const reply = planReply(request({ maxTokens: 5, stopSequences: ['gamma'] }), 16);
    expect(reply).toMatchObject({ text: 'Simulated reply from test-model: alpha', finish: 'length', stopSequence: undefined, completionTokens: 5 });
  });
});

describe('planReply tools', () => {
  it('calls the first offered tool with arguments from its schema', () => {
    const reply = planReply(request({ tools: [weather, time] }), 16);
    expect(reply.finish).toBe('tool_calls');
    expect(reply.toolCalls).toHaveLength(1);
    expect(reply.toolCalls[0]).toMatchObject({ name: 'get_weather', input: { city: 'sample' }, arguments: '{"city":"sample"}' });
    expect(reply.toolCalls[0].fragments.length).toBeGreaterThan(1);
    expect(reply.toolCalls[0].fragments.join('')).toBe('{"city":"sample"}');
    expect(reply.completionTokens).toBe(TOOL_CALL_TOKENS);
  });

  it('calls the named tool, or none when told so', () => {
    const named = planReply(request({ tools: [weather, time], toolChoice: { type: 'tool', name: 'get_time' } }), 16);
    expect(named.toolCalls.map((call) => call.name)).toEqual(['get_time']);
    expect(planReply(request({ tools: [weather], toolChoice: { type: 'none' } }), 16).finish).toBe('stop');
  });

  it('calls the first two tools when the prompt says "parallel" and parallel calls are allowed', () => {
    const messages = [{ role: 'user' as const, text: 'do both in parallel please' }];
    expect(planReply(request({ tools: [weather, time], messages }), 16).toolCalls.map((call) => call.name)).toEqual(['get_weather', 'get_time']);
    expect(planReply(request({ tools: [weather, time], messages, parallelToolCalls: false }), 16).toolCalls).toHaveLength(1);
  });

  it('answers a tool result with text that mentions it', () => {
    const messages = [
      { role: 'user' as const, text: 'weather?' },
      { role: 'assistant' as const, text: 'get_weather {"city":"sample"}' },
      { role: 'tool' as const, text: 'sunny 21C' },
    ];
    const reply = planReply(request({ tools: [weather], messages }), 8);
    expect(reply.toolCalls).toEqual([]);
    expect(reply.text).toBe('Simulated reply from test-model: sunny 21C sunny 21C');
  });
});
