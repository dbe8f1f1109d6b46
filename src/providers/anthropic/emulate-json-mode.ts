import type { AssistantContentPart } from '../../core/content.js';
import type { StreamPart } from '../../core/stream-part.js';
import type { TextRequest } from '../../core/text-request.js';
import type { TextResult } from '../../core/text-result.js';
import type { AnthropicMessagesBody, AnthropicTool } from '../../wire/anthropic/wire-types.js';

/**
 * JSON mode without a schema (Chat `response_format: {type: "json_object"}`, Responses
 * `text.format: {type: "json_object"}`), which Anthropic has no field for, emulated as Anthropic's
 * tool-use guide suggests for JSON output ("JSON mode"):
 * a tool whose input is any object, which the model is made to call; its input is the answer,
 * handed to the client as the message text (and streamed as text), and the turn ends as `stop`.
 *
 * Forcing it: `tool_choice: {type: "tool"}` without tools of the client's (or with `tool_choice:
 * "none"`), `any` beside the client's tools (the model answers in JSON or calls one of them), the
 * client's own named tool left as it is. Anthropic refuses forced tool use with extended
 * thinking, so with thinking on the tool is only offered (`auto`).
 */
export const jsonModeToolName = 'json_response';

const jsonModeTool: AnthropicTool = {
  name: jsonModeToolName,
  description: 'Give your whole answer as this tool\'s input: one JSON object.',
  input_schema: { type: 'object', additionalProperties: true },
};

export function emulatesJsonMode(request: TextRequest): boolean {
  return request.responseFormat?.type === 'json_object';
}

/** Adds the JSON tool and the choice that forces it to an Anthropic body. */
export function addJsonModeTool(body: AnthropicMessagesBody, request: TextRequest): void {
  const clientTools = body.tools ?? [];
  body.tools = [...clientTools, jsonModeTool];
  const thinking = body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive';
  const current = body.tool_choice;
  const disableParallel = current && 'disable_parallel_tool_use' in current ? { disable_parallel_tool_use: current.disable_parallel_tool_use } : {};
  if (thinking) {
    if (current?.type !== 'tool') body.tool_choice = { type: 'auto', ...disableParallel };
  } else if (current?.type === 'tool') {
    // The client forced one of its own tools: that call is the answer.
  } else if (clientTools.length === 0 || current?.type === 'none' || request.toolChoice === 'none') {
    body.tool_choice = { type: 'tool', name: jsonModeToolName };
  } else {
    body.tool_choice = { type: 'any', ...disableParallel };
  }
}

/** A result whose JSON-tool call becomes its text. */
export function jsonModeResult(result: TextResult): TextResult {
  const content: AssistantContentPart[] = [];
  let answered = false;
  for (const part of result.content) {
    if (part.type === 'tool-call' && part.name === jsonModeToolName) {
      content.push({ type: 'text', text: part.arguments });
      answered = true;
    } else {
      content.push(part);
    }
  }
  if (!answered) return result;
  const otherCalls = content.some((part) => part.type === 'tool-call');
  return { ...result, content, finishReason: result.finishReason === 'tool_calls' && !otherCalls ? 'stop' : result.finishReason };
}

/**
 * The stream side: the JSON tool's argument deltas are text deltas, its start is dropped, the
 * client's tool calls keep consecutive indexes, and a turn that ended only for the JSON tool
 * ends as `stop`.
 */
export async function* jsonModeParts(parts: AsyncIterable<StreamPart>): AsyncGenerator<StreamPart> {
  const jsonIndexes = new Set<number>();
  const renumbered = new Map<number, number>();
  for await (const part of parts) {
    if (part.type === 'tool-call-start') {
      if (part.name === jsonModeToolName) {
        jsonIndexes.add(part.index);
        continue;
      }
      const index = renumbered.size;
      renumbered.set(part.index, index);
      yield { ...part, index };
    } else if (part.type === 'tool-call-delta') {
      if (jsonIndexes.has(part.index)) {
        if (part.argumentsDelta) yield { type: 'text-delta', text: part.argumentsDelta };
      } else {
        yield { ...part, index: renumbered.get(part.index) ?? part.index };
      }
    } else if (part.type === 'finish' && part.finishReason === 'tool_calls' && jsonIndexes.size > 0 && renumbered.size === 0) {
      yield { ...part, finishReason: 'stop' };
    } else {
      yield part;
    }
  }
}
