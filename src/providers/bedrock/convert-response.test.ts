import { describe, expect, it } from 'vitest';
import { convertConverseResponse } from './convert-response.js';
import { readJsonFixture } from './__fixtures__/read-fixture.js';
import type { ConverseResponse } from './wire-types.js';

// Converse answers vendored from vercel/ai (see __fixtures__/SOURCES.md).
const read = (name: string) => convertConverseResponse(readJsonFixture<ConverseResponse>(name));

describe('convertConverseResponse', () => {
  it('reads a recorded text answer with its usage', () => {
    expect(read('amazon-bedrock-text.json')).toEqual({
      content: [{ type: 'text', text: 'Let me count the "r"s in "strawberry":\n\ns-t-**r**-a-w-b-e-**r**-**r**-y\n\nThere are **3** "r"s in "strawberry."' }],
      finishReason: 'stop',
      usage: { promptTokens: 22, completionTokens: 57 },
    });
  });

  it('keeps recorded reasoning with its signature, before the text', () => {
    const result = read('amazon-bedrock-reasoning.json');
    expect(result.content.map((part) => part.type)).toEqual(['reasoning', 'text']);
    expect(result.content[0]).toMatchObject({ type: 'reasoning', text: expect.stringContaining('s-t-r-a-w-b-e-r-r-y'), signature: expect.stringMatching(/^EvYBCkgICxAB/) });
    expect(result.usage).toEqual({ promptTokens: 51, completionTokens: 78 });
  });

  it('turns toolUse blocks into tool calls, an empty input into {}', () => {
    expect(read('amazon-bedrock-tool-call.1.json')).toMatchObject({
      content: [{ type: 'tool-call', id: 'tool-use-id', name: 'bash', arguments: '{"command":"ls -l"}' }],
      finishReason: 'tool_calls',
    });
    expect(read('amazon-bedrock-tool-no-args.json').content).toEqual([
      { type: 'text', text: "I'll update the issue list for you." },
      { type: 'tool-call', id: 'tool-use-id', name: 'updateIssueList', arguments: '{}' },
    ]);
  });

  it('adds cache reads and writes to the prompt and reports each, and reads guardrail stops as content_filter', () => {
    const result = convertConverseResponse({
      output: { message: { role: 'assistant', content: [{ text: 'ok' }] } },
      stopReason: 'guardrail_intervened',
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 1215, cacheReadInputTokens: 1000, cacheWriteInputTokens: 200 },
    });
    expect(result.usage).toEqual({ promptTokens: 1210, completionTokens: 5, cachedPromptTokens: 1000, cacheWritePromptTokens: 200 });
    expect(result.finishReason).toBe('content_filter');
  });

  it('reads the stop sequence Claude reports and marks an answer without usage for estimation', () => {
    const result = convertConverseResponse({ output: { message: { content: [{ text: 'a' }] } }, stopReason: 'stop_sequence', additionalModelResponseFields: { stop_sequence: 'END' } });
    expect(result).toMatchObject({ finishReason: 'stop', stopSequence: 'END', usage: { estimated: true } });
  });
});
