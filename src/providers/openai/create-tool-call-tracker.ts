import type { StreamPart } from '../../core/stream-part.js';
import { generateToolCallId } from './generate-tool-call-id.js';
import { asNumber, asRecord, asString } from '../shared/lenient-json.js';

export interface ToolCallTracker {
  /** Appends the parts for one delta's `tool_calls` array to `parts`. */
  accept(toolCalls: readonly unknown[], parts: StreamPart[]): void;
  /** True when a call never received its function name, so its start was never emitted. */
  hasUnnamedCalls(): boolean;
}

interface TrackedCall {
  /** Canonical index, assigned when the call starts. */
  index?: number;
  id?: string;
  /** Arguments that arrived before the function name. */
  heldArguments: string;
}

/**
 * Numbers streamed tool calls 0, 1, … in the order they start, whatever numbering the server
 * uses. OpenAI keys each delta by `tool_calls[].index` and sends the id and name in the first one
 * (https://platform.openai.com/docs/guides/function-calling#streaming); some compatible servers
 * omit `index` and send whole calls with ids, or send later deltas with neither.
 */
export function createToolCallTracker(): ToolCallTracker {
  const calls = new Map<number | string, TrackedCall>();
  let nextIndex = 0;
  let lastKey: number | string | undefined;

  function accept(toolCalls: readonly unknown[], parts: StreamPart[]): void {
    toolCalls.forEach((value, position) => {
      const call = asRecord(value);
      if (!call) return;
      const fn = asRecord(call.function);
      const id = asString(call.id) || undefined;
      const key = asNumber(call.index) ?? id ?? lastKey ?? position;
      lastKey = key;
      let tracked = calls.get(key);
      if (!tracked) {
        tracked = { heldArguments: '' };
        calls.set(key, tracked);
      }
      tracked.id ??= id;
      let argumentsDelta = asString(fn?.arguments) ?? '';
      if (tracked.index === undefined) {
        const name = asString(fn?.name);
        if (!name) {
          tracked.heldArguments += argumentsDelta;
          return;
        }
        tracked.index = nextIndex++;
        parts.push({ type: 'tool-call-start', index: tracked.index, id: tracked.id ?? generateToolCallId(), name });
        argumentsDelta = tracked.heldArguments + argumentsDelta;
        tracked.heldArguments = '';
      }
      if (argumentsDelta) parts.push({ type: 'tool-call-delta', index: tracked.index, argumentsDelta });
    });
  }

  function hasUnnamedCalls(): boolean {
    for (const call of calls.values()) if (call.index === undefined) return true;
    return false;
  }

  return { accept, hasUnnamedCalls };
}
