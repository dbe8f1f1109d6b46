import { buildToolArguments } from './build-tool-arguments.js';
import { countPromptTokens, TOOL_CALL_TOKENS } from './count-tokens.js';
import { stripDirectives } from './faults.js';
import type { SimulatedMessage, SimulatedRequest, SimulatedTool } from './simulated-request.js';
import { asksForText, conversationIsScripted, readScriptedCall, scriptedText, stripScriptDirectives } from './scripted-turns.js';

export interface PlannedToolCall {
  name: string;
  input: Record<string, unknown>;
  /** `input` as JSON text. */
  arguments: string;
  /** `arguments` cut into pieces, so that streams deliver them over several deltas. */
  fragments: string[];
}

export type PlannedFinish = 'stop' | 'length' | 'stop_sequence' | 'tool_calls';

/** What the simulated model answers, before any protocol encoding. */
export interface PlannedReply {
  text: string;
  /** `text` split into one piece per token: each word with its leading space. */
  pieces: string[];
  toolCalls: PlannedToolCall[];
  finish: PlannedFinish;
  stopSequence?: string;
  promptTokens: number;
  completionTokens: number;
}

/** Characters per streamed tool-argument delta; small enough that every call spans several. */
const ARGUMENT_FRAGMENT_CHARS = 8;

// Echoed when the last message has no words of its own (an image only, say).
const FALLBACK_WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet'];

/**
 * Decides the reply. Tools are called when they are offered, allowed, and the last input
 * message is the user's (not a tool result); otherwise the reply is text: "Simulated reply from
 * <model>:" followed by the words of the last input message (directives removed), repeated until
 * the reply has `replyTokens` words, then cut at the first stop sequence and at `maxTokens`.
 */
export function planReply(request: SimulatedRequest, replyTokens: number): PlannedReply {
  const promptTokens = countPromptTokens(request.messages);
  const last = findLastInput(request.messages);
  const toolCalls = last?.role === 'user' ? planToolCalls(request, last) : [];
  if (toolCalls.length > 0) {
    return { text: '', pieces: [], toolCalls, finish: 'tool_calls', promptTokens, completionTokens: toolCalls.length * TOOL_CALL_TOKENS };
  }
  // A scripted tool loop ends by quoting the whole tool result, however long.
  const scriptEnds = last?.role === 'tool' && conversationIsScripted(request.messages);
  let text =
    request.outputSchema !== undefined
      ? JSON.stringify(buildToolArguments(request.outputSchema))
      : scriptEnds
        ? finalScriptedText(last.text)
        : request.jsonMode
          ? JSON.stringify({ reply: generateText(request.model, last?.text ?? '', replyTokens) })
          : generateText(request.model, last?.text ?? '', replyTokens);
  let finish: PlannedFinish = 'stop';
  let stopSequence: string | undefined;
  let cutAt = text.length;
  for (const candidate of request.stopSequences) {
    const index = text.indexOf(candidate);
    if (index !== -1 && index < cutAt) {
      cutAt = index;
      stopSequence = candidate;
    }
  }
  if (stopSequence !== undefined) {
    text = text.slice(0, cutAt).trimEnd();
    finish = 'stop_sequence';
  }
  let pieces = splitIntoPieces(text);
  if (request.maxTokens !== undefined && pieces.length > request.maxTokens) {
    // The token limit came before the stop sequence would have.
    pieces = pieces.slice(0, request.maxTokens);
    text = pieces.join('');
    finish = 'length';
    stopSequence = undefined;
  }
  return { text, pieces, toolCalls: [], finish, stopSequence, promptTokens, completionTokens: pieces.length };
}

function findLastInput(messages: readonly SimulatedMessage[]): SimulatedMessage | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index].role !== 'system') return messages[index];
  }
  return undefined;
}

function planToolCalls(request: SimulatedRequest, last: SimulatedMessage): PlannedToolCall[] {
  const { tools, toolChoice } = request;
  if (tools.length === 0 || toolChoice.type === 'none' || asksForText(last.text)) return [];
  const scripted = readScriptedCall(last.text);
  if (scripted) {
    const argumentsText = JSON.stringify(scripted.input);
    return [{ name: scripted.name, input: scripted.input, arguments: argumentsText, fragments: splitFragments(argumentsText) }];
  }
  let chosen: SimulatedTool[];
  if (toolChoice.type === 'tool') {
    chosen = [tools.find((tool) => tool.name === toolChoice.name) ?? { name: toolChoice.name, parameters: {} }];
  } else {
    const parallel = request.parallelToolCalls && /\bparallel\b/i.test(last.text);
    chosen = tools.slice(0, parallel ? 2 : 1);
  }
  return chosen.map((tool) => {
    const input = buildToolArguments(tool.parameters);
    const argumentsText = JSON.stringify(input);
    return { name: tool.name, input, arguments: argumentsText, fragments: splitFragments(argumentsText) };
  });
}

function generateText(model: string, lastText: string, replyTokens: number): string {
  // A model id with spaces would break the one-word-per-token rule of the prefix.
  const words = ['Simulated', 'reply', 'from', `${model.replace(/\s+/g, '-')}:`];
  const fixed = scriptedText(lastText);
  if (fixed !== undefined) return ['Simulated', 'reply', 'from', `${model.replace(/\s+/g, '-')}:`, fixed].join(' ');
  const echoed = stripScriptDirectives(stripDirectives(lastText)).split(/\s+/).filter((word) => word !== '');
  const source = echoed.length > 0 ? echoed : FALLBACK_WORDS;
  for (let index = 0; words.length < replyTokens; index++) words.push(source[index % source.length]);
  return words.slice(0, replyTokens).join(' ');
}

function finalScriptedText(result: string): string {
  const words = result.split(/\s+/).filter((word) => word !== '');
  return ['Tool', 'result:', ...(words.length > 0 ? words : ['(empty)'])].join(' ');
}

function splitIntoPieces(text: string): string[] {
  if (text === '') return [];
  return text.split(' ').map((word, index) => (index === 0 ? word : ` ${word}`));
}

function splitFragments(text: string): string[] {
  const fragments: string[] = [];
  for (let start = 0; start < text.length; start += ARGUMENT_FRAGMENT_CHARS) {
    fragments.push(text.slice(start, start + ARGUMENT_FRAGMENT_CHARS));
  }
  return fragments;
}
