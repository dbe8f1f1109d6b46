import { describe, expect, it } from 'vitest';
import { planReply } from './plan-reply.js';
import type { SimulatedRequest } from './protocol-adapter.js';
import { readScriptedCall, ScriptSyntaxError } from './scripted-turns.js';

const bash = { name: 'Bash', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } };
const task = { name: 'Task', parameters: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] } };

function request(messages: SimulatedRequest['messages']): SimulatedRequest {
  return {
    protocol: 'anthropic',
    model: 'claude-sim',
    stream: false,
    messages,
    tools: [task, bash],
    toolChoice: { type: 'auto' },
    parallelToolCalls: true,
    stopSequences: [],
    includeStreamUsage: true,
  };
}

describe('scripted turns', () => {
  it('calls the named tool with the scripted arguments, not the first offered tool', () => {
    const reply = planReply(request([{ role: 'user', text: 'run it [[sim-call:Bash {"command":"echo hi > out.txt"}]]' }]), 16);
    expect(reply.finish).toBe('tool_calls');
    expect(reply.toolCalls).toHaveLength(1);
    expect(reply.toolCalls[0]).toMatchObject({ name: 'Bash', input: { command: 'echo hi > out.txt' }, arguments: '{"command":"echo hi > out.txt"}' });
    expect(reply.toolCalls[0].fragments.join('')).toBe(reply.toolCalls[0].arguments);
  });

  it('quotes the whole tool result once the scripted call has been answered', () => {
    const longResult = 'Exit code: 0 Wall time: 0.1 seconds Output: one two three four five six seven eight nine marker-42';
    const reply = planReply(
      request([
        { role: 'user', text: 'run it [[sim-call:Bash {"command":"echo marker-42"}]]' },
        { role: 'assistant', text: 'Bash {"command":"echo marker-42"}' },
        { role: 'tool', text: longResult },
      ]),
      16,
    );
    expect(reply.finish).toBe('stop');
    expect(reply.toolCalls).toEqual([]);
    expect(reply.text).toBe(`Tool result: ${longResult}`);
    expect(reply.completionTokens).toBe(reply.text.split(' ').length);
  });

  it('answers in text although tools are offered when asked to, without echoing the directive', () => {
    const reply = planReply(request([{ role: 'user', text: 'say hi [[sim-text]]' }]), 6);
    expect(reply.toolCalls).toEqual([]);
    expect(reply.text).toBe('Simulated reply from claude-sim: say hi');
  });

  it('without a script still calls the first offered tool and echoes a tool result as before', () => {
    expect(planReply(request([{ role: 'user', text: 'go' }]), 16).toolCalls[0].name).toBe('Task');
    const after = planReply(request([{ role: 'user', text: 'go' }, { role: 'tool', text: 'done' }]), 6);
    expect(after.text).toBe('Simulated reply from claude-sim: done done');
  });

  it('answers with fixed words after the usual prefix, whatever else the turn holds', () => {
    const reply = planReply(request([{ role: 'user', text: '<environment_context>/tmp</environment_context> say hi [[sim-text:Hello from the simulator]]' }]), 16);
    expect(reply.toolCalls).toEqual([]);
    expect(reply.text).toBe('Simulated reply from claude-sim: Hello from the simulator');
    expect(reply.completionTokens).toBe(8);
  });

  it('rejects scripted arguments that are not a JSON object', () => {
    expect(() => readScriptedCall('[[sim-call:Bash {"command": }]]')).toThrow(ScriptSyntaxError);
    expect(() => readScriptedCall('[[sim-call:]]')).toThrow(ScriptSyntaxError);
    expect(readScriptedCall('[[sim-call:Bash]]')).toEqual({ name: 'Bash', input: {} });
  });
});

describe('scripted turns over HTTP', () => {
  it('skips system entries inside Anthropic messages, answers the user turn, and keeps the body it received byte for byte', async () => {
    const { startSimulator } = await import('./start-simulator.js');
    const simulator = await startSimulator();
    try {
      const body = JSON.stringify({
        model: 'claude-sim',
        max_tokens: 100,
        tools: [task, bash].map((tool) => ({ name: tool.name, input_schema: tool.parameters })),
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'run [[sim-call:Bash {"command":"echo marker"}]]' }] },
          { role: 'system', content: 'deferred tools: none' },
        ],
      });
      const response = await fetch(`${simulator.baseUrls.anthropic}/v1/messages?beta=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const reply = (await response.json()) as { content: { type: string; name?: string; input?: unknown }[] };
      expect(reply.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'Bash', input: { command: 'echo marker' } })]);
      const [received] = simulator.received();
      expect(received).toMatchObject({ protocol: 'anthropic', method: 'POST', path: '/anthropic/v1/messages?beta=true', rawBody: body });
      expect(simulator.lastRequest('anthropic')).toBe(received);
      simulator.reset();
      expect(simulator.received()).toEqual([]);
    } finally {
      await simulator.close();
    }
  });
});
