import { describe, expect, it } from 'vitest';
import { mapFinishReason } from './map-finish-reason.js';

describe('mapFinishReason', () => {
  it('maps STOP to tool_calls only when the turn made function calls', () => {
    expect(mapFinishReason('STOP', false)).toBe('stop');
    expect(mapFinishReason('STOP', true)).toBe('tool_calls');
  });

  it('maps length and every blocking reason', () => {
    expect(mapFinishReason('MAX_TOKENS', true)).toBe('length');
    for (const reason of ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT']) {
      expect(mapFinishReason(reason, false), reason).toBe('content_filter');
    }
  });

  it('maps malformed calls, unknown and missing reasons to other', () => {
    for (const reason of ['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'LANGUAGE', 'OTHER', 'FINISH_REASON_UNSPECIFIED', 'SOMETHING_NEW', undefined]) {
      expect(mapFinishReason(reason, true), String(reason)).toBe('other');
    }
  });
});
