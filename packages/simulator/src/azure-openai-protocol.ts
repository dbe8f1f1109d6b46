import { openaiProtocol } from './openai-protocol.js';
import type { PlannedReply } from './plan-reply.js';
import { asRecord, type ProtocolAdapter, type SimulatedRequest, type StreamEvent } from './protocol-adapter.js';

/**
 * Azure OpenAI's Chat Completions: OpenAI's wire with Azure's differences, as a gateway meets
 * them (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference):
 * - the key in an `api-key` header, never a bearer token;
 * - errors as `{"error": {"code": "<status>", "message"}}` (a 429 says when to retry, in its
 *   message and in `retry-after` and `retry-after-ms`);
 * - content-filter annotations on every answer (`prompt_filter_results`, and per choice
 *   `content_filter_results`), and a stream that opens with a chunk of no choices carrying the
 *   prompt's filter results;
 * - a filtered completion: the text up to where the filter cut it, `finish_reason:
 *   "content_filter"` and the category that tripped, still a 200. The simulator filters when the
 *   last message holds the word `unsafe`.
 * The deployment API names the model in the URL (`route.model`), so the body's `model` may be absent.
 */
export const azureOpenaiProtocol: ProtocolAdapter = {
  protocol: 'openai',
  requestIdHeader: 'apim-request-id',
  isAuthorized: (headers, _query, apiKey) => headers['api-key'] === apiKey,
  encodeAuthError: () => ({
    status: 401,
    body: {
      error: {
        code: '401',
        message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
      },
    },
  }),
  // Azure says when to retry in whole seconds and in milliseconds (`retry-after-ms`), the latter
  // being what Azure's own clients read.
  retryAfterHeaders: (seconds) => ({ 'retry-after': String(Math.ceil(seconds)), 'retry-after-ms': String(Math.round(seconds * 1000)) }),
  encodeError: (status, { message, retryAfterSeconds }) => ({
    status,
    body: {
      error: {
        code: String(status),
        message:
          message ??
          (status === 429
            ? `Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after ${retryAfterSeconds ?? 1} seconds.`
            : status >= 500
              ? 'The server had an error while processing your request. Sorry about that!'
              : `Simulated error with status ${status}.`),
      },
    },
  }),
  decodeRequest(body, route) {
    const record = asRecord(body);
    // The deployment names the model; the v1 API reads it from the body as OpenAI does.
    const withModel = route.model !== undefined ? { ...record, model: route.model } : record;
    return openaiProtocol.decodeRequest(withModel, route);
  },
  encodeResponse(request, reply, context) {
    const filtered = isFiltered(request);
    const answer = asRecord(openaiProtocol.encodeResponse(request, filtered ? cutReply(reply) : reply, context));
    for (const choice of answerChoices(answer)) {
      choice.content_filter_results = completionFilterResults(filtered);
      if (filtered) choice.finish_reason = 'content_filter';
    }
    return { ...answer, prompt_filter_results: promptFilterResults() };
  },
  encodeStream(request, reply, context) {
    const filtered = isFiltered(request);
    const stream = openaiProtocol.encodeStream(request, filtered ? cutReply(reply) : reply, context);
    const opening: StreamEvent = {
      data: JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: promptFilterResults() }),
      tokens: 0,
    };
    const events = stream.events.map((event) => (event.data === '[DONE]' ? event : annotateChunk(event, filtered)));
    return { ...stream, events: [opening, ...events] };
  },
};

const categories = ['hate', 'self_harm', 'sexual', 'violence'] as const;

function isFiltered(request: SimulatedRequest): boolean {
  const last = request.messages.at(-1);
  return last !== undefined && /\bunsafe\b/i.test(last.text);
}

/** The completion as far as the filter let it through: its first half, no tool calls. */
function cutReply(reply: PlannedReply): PlannedReply {
  const pieces = reply.pieces.slice(0, Math.ceil(reply.pieces.length / 2));
  return { ...reply, text: pieces.join(''), pieces, toolCalls: [], finish: 'stop', completionTokens: pieces.length };
}

function promptFilterResults(): unknown[] {
  return [{ prompt_index: 0, content_filter_results: completionFilterResults(false) }];
}

function completionFilterResults(filtered: boolean): Record<string, unknown> {
  return Object.fromEntries(
    categories.map((category) => [category, category === 'violence' && filtered ? { filtered: true, severity: 'high' } : { filtered: false, severity: 'safe' }]),
  );
}

function answerChoices(answer: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(answer.choices) ? answer.choices.map(asRecord) : [];
}

/** Each choice chunk carries its filter results; the finish chunk of a filtered answer says `content_filter`. */
function annotateChunk(event: StreamEvent, filtered: boolean): StreamEvent {
  const chunk = asRecord(JSON.parse(event.data));
  const choices = answerChoices(chunk);
  if (choices.length === 0) return event;
  for (const choice of choices) {
    const finishing = choice.finish_reason !== null && choice.finish_reason !== undefined;
    choice.content_filter_results = finishing ? completionFilterResults(filtered) : {};
    if (finishing && filtered) choice.finish_reason = 'content_filter';
  }
  return { ...event, data: JSON.stringify({ ...chunk, choices }) };
}
