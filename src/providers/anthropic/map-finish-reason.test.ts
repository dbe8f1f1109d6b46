import { describe, expect, it } from 'vitest';
import { mapAnthropicFinishReason } from './map-finish-reason.js';

describe('mapAnthropicFinishReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'other'],
    ['something_new', 'other'],
    [null, 'other'],
    [undefined, 'other'],
  ] as const)('maps %s to %s', (stopReason, expected) => {
    expect(mapAnthropicFinishReason(stopReason)).toBe(expected);
  });
});
