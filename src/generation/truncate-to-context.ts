import { estimatePromptTokens } from '../billing/estimate-tokens.js';
import type { Message } from '../core/content.js';
import type { TextRequest } from '../core/text-request.js';
import type { Candidate } from '../catalog/candidate.js';

/**
 * Responses `truncation: "auto"`, emulated: "if the input exceeds the model's context window, the
 * model truncates the response to fit the context window by dropping items from the beginning of
 * the conversation" (https://platform.openai.com/docs/api-reference/responses/create). The
 * gateway does it before the call, on its own (generous) estimate of the input, against the
 * smallest context window of the endpoints it may try, less the output the client asked room for.
 * The system messages (instructions) stay; whole turns go, oldest first, so a tool result never
 * loses the call it answers; the last turn always stays, and when even it does not fit, the
 * provider says so as it would without truncation.
 */
export function truncateToContext(request: TextRequest, candidates: readonly Candidate[]): TextRequest {
  if (request.truncation !== 'auto') return request;
  const windows = candidates.map((candidate) => candidate.endpoint.contextLength ?? candidate.model.contextLength).filter((length): length is number => length !== null);
  if (windows.length === 0) return request;
  const window = Math.min(...windows);
  const output = request.maxTokens !== undefined && request.maxTokens < window ? request.maxTokens : 0;
  const budget = window - output;
  if (estimatePromptTokens(request).tokens <= budget) return request;

  const system = request.messages.filter((message) => message.role === 'system');
  let turns = splitTurns(request.messages.filter((message) => message.role !== 'system'));
  let truncated: TextRequest = request;
  while (turns.length > 1) {
    turns = turns.slice(1);
    truncated = { ...request, messages: [...system, ...turns.flat()] };
    if (estimatePromptTokens(truncated).tokens <= budget) break;
  }
  return truncated;
}

/** Turns: each starts at a user message and holds the answers, tool calls and tool results that follow it. */
function splitTurns(messages: Message[]): Message[][] {
  const turns: Message[][] = [];
  for (const message of messages) {
    if (message.role === 'user' || turns.length === 0) turns.push([message]);
    else turns[turns.length - 1].push(message);
  }
  return turns;
}
