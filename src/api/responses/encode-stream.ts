import type { StreamError, StreamPart } from '../../core/stream-part.js';
import type { HostedToolCall } from '../../core/hosted-tool-call.js';
import { systemClock, type Clock } from '../../core/clock.js';
import { encodeRedactedReasoning } from '../shared/redacted-reasoning.js';
import type { ResponseMeta } from '../shared/text-call.js';
import { unixSeconds } from './unix-seconds.js';
import { buildResponseObject, type ResponseState } from './build-response-object.js';
import { deriveItemId } from './derive-item-id.js';
import { encodeUsage } from './encode-usage.js';
import { formatSseEvent, type StreamEvent } from './format-sse-event.js';
import { mapFinishStatus } from './map-finish-status.js';
import type { ResponsesEcho } from './responses-echo.js';
import { splitToolName } from './tool-namespaces.js';
import type { ItemStatus, OutputItem, ResponseObject } from './responses-wire.js';
import { encodeAnnotation, readRefusal } from './encode-output-items.js';
import { encodeImageGenerationCallItem, encodeWebSearchCallItem } from './encode-web-search-call.js';
import { annotationEvents, refusalItemEvents, closeItemEvents, deltaEvents, openItemEvents, type OpenFunctionCall, type OpenItem } from './stream-item-events.js';
import { withFields } from '../../core/with-fields.js';

export interface EncodeStreamOptions {
  /** The time source for `completed_at`; defaults to the system clock. */
  clock?: Clock;
  /**
   * Called with the final Response object (completed, incomplete or failed) before its event is
   * written, so a stored response exists by the time the client reads the stream's end.
   */
  onTerminal?: (response: ResponseObject) => Promise<void>;
}

/**
 * Canonical stream parts → the Responses API's SSE events, numbered from 0 by `sequence_number`.
 * Nothing is written until the first part arrives, so the caller can still fail over while the
 * upstream has said nothing. Text and reasoning items close when another item starts; function
 * calls stay open until the end, because their argument deltas may interleave (by `index`).
 * Reference: https://platform.openai.com/docs/api-reference/responses-streaming
 */
export async function* encodeResponsesStream(
  parts: AsyncIterable<StreamPart>,
  meta: ResponseMeta,
  echo: ResponsesEcho,
  options: EncodeStreamOptions = {},
): AsyncGenerator<string> {
  for await (const event of encodeResponsesEvents(parts, meta, echo, options)) yield formatSseEvent(event);
}

/** The same events as objects, each with its `sequence_number`: SSE frames them, WebSocket mode sends each as one message. */
export async function* encodeResponsesEvents(
  parts: AsyncIterable<StreamPart>,
  meta: ResponseMeta,
  echo: ResponsesEcho,
  options: EncodeStreamOptions = {},
): AsyncGenerator<StreamEvent> {
  const clock = options.clock ?? systemClock;
  const output: OutputItem[] = [];
  const calls = new Map<number, OpenFunctionCall>();
  let open: OpenItem[] = [];
  let sequence = 0;
  let nextOutputIndex = 0;
  let started = false;

  const frames = (events: StreamEvent[]): StreamEvent[] => events.map((event) => withFields(event, { sequence_number: sequence++ }));
  const snapshot = (state: Omit<ResponseState, 'output'>) => buildResponseObject(meta, echo, { ...state, output: [...output] });

  function start(): StreamEvent[] {
    if (started) return [];
    started = true;
    const response = snapshot({ status: 'in_progress', usage: null });
    return [{ type: 'response.created', response }, { type: 'response.in_progress', response }];
  }

  function close(items: OpenItem[], status: ItemStatus): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const item of items) {
      const closed = closeItemEvents(item, status);
      output[item.outputIndex] = closed.done;
      events.push(...closed.events);
    }
    open = open.filter((item) => !items.includes(item));
    return events;
  }

  /** The open item of `kind` to append to, or a new one after closing open text and reasoning. */
  function current(kind: 'message' | 'reasoning'): { item: OpenItem; events: StreamEvent[] } {
    const existing = open.find((item) => item.kind === kind);
    if (existing) return { item: existing, events: [] };
    const events = close(open.filter((item) => item.kind !== 'function_call'), 'completed');
    const outputIndex = nextOutputIndex++;
    const base = { id: deriveItemId(kind, meta.id, outputIndex), outputIndex, text: '' };
    const item: OpenItem = kind === 'message' ? { ...base, kind, annotations: [] } : { ...base, kind, summaryStarted: false };
    open.push(item);
    return { item, events: [...events, ...openItemEvents(item)] };
  }

  /** The output index of each hosted call whose start went out, by the gateway's call id. */
  const hostedStarts = new Map<string, number>();

  function hostedCallStart(call: HostedToolCall): StreamEvent[] {
    if (call.tool === 'web_fetch') return [];
    const events = close(open.filter((item) => item.kind !== 'function_call'), 'completed');
    const outputIndex = nextOutputIndex++;
    hostedStarts.set(call.id, outputIndex);
    if (call.tool === 'image_generation') {
      const item = { ...encodeImageGenerationCallItem(call), status: 'in_progress', result: null };
      const ids = { output_index: outputIndex, item_id: item.id };
      return [...events, { type: 'response.output_item.added', output_index: outputIndex, item }, { type: 'response.image_generation_call.in_progress', ...ids }, { type: 'response.image_generation_call.generating', ...ids }];
    }
    const item = encodeWebSearchCallItem(call);
    const ids = { output_index: outputIndex, item_id: item.id };
    return [
      ...events,
      { type: 'response.output_item.added', output_index: outputIndex, item: { id: item.id, type: 'web_search_call', status: 'in_progress', action: { type: 'search', query: item.action.query } } },
      { type: 'response.web_search_call.in_progress', ...ids },
      { type: 'response.web_search_call.searching', ...ids },
    ];
  }

  function hostedCallEnd(call: HostedToolCall): StreamEvent[] {
    const outputIndex = hostedStarts.get(call.id);
    if (outputIndex === undefined || call.tool === 'web_fetch') return [];
    const done = call.tool === 'web_search' ? encodeWebSearchCallItem(call) : encodeImageGenerationCallItem(call);
    output[outputIndex] = done;
    const ids = { output_index: outputIndex, item_id: done.id };
    const completed = call.tool === 'web_search' ? 'response.web_search_call.completed' : 'response.image_generation_call.completed';
    return [{ type: completed, ...ids }, { type: 'response.output_item.done', output_index: outputIndex, item: done }];
  }

  function fail(error: StreamError | { code: string; message: string }): StreamEvent[] {
    const events = close(open, 'incomplete');
    const response = snapshot({ status: 'failed', usage: null, error: { code: error.code, message: error.message } });
    return [...events, { type: 'response.failed', response }];
  }

  async function failTerminal(error: StreamError | { code: string; message: string }): Promise<StreamEvent[]> {
    const events = fail(error);
    const last = events.at(-1);
    if (last?.type === 'response.failed') await options.onTerminal?.(last.response as ResponseObject);
    return events;
  }

  try {
    for await (const part of parts) {
      yield* frames(start());
      switch (part.type) {
        case 'start':
          break;
        case 'text-delta':
        case 'reasoning-delta': {
          const { item, events } = current(part.type === 'text-delta' ? 'message' : 'reasoning');
          yield* frames([...events, ...deltaEvents(item, part.text)]);
          break;
        }
        case 'reasoning-signature': {
          const { item, events } = current('reasoning');
          if (item.kind === 'reasoning') item.signature = part.signature;
          yield* frames(events);
          break;
        }
        case 'citation': {
          // It cites text already streamed, in the message that is still open.
          const message = open.find((item) => item.kind === 'message');
          if (message?.kind !== 'message') break;
          const end = message.text.length;
          const start = part.textLength === undefined ? 0 : Math.max(0, end - part.textLength);
          yield* frames(annotationEvents(message, encodeAnnotation(part.citation, start, end)));
          break;
        }
        case 'reasoning-redacted': {
          // A whole block: its own reasoning item, opened and closed at once.
          const events = close(open.filter((item) => item.kind !== 'function_call'), 'completed');
          const { item, events: opened } = current('reasoning');
          if (item.kind === 'reasoning') item.signature = encodeRedactedReasoning(part.data);
          yield* frames([...events, ...opened, ...close([item], 'completed')]);
          break;
        }
        case 'hosted-tool-start':
          // As OpenAI streams its hosted tools: the item added, in progress, searching (generating)…
          yield* frames(hostedCallStart(part.call));
          break;
        case 'hosted-tool-call':
          // … then completed and done, once the call has its result (all at once if its start was not sent).
          yield* frames([...(hostedStarts.has(part.call.id) ? [] : hostedCallStart(part.call)), ...hostedCallEnd(part.call)]);
          break;
        case 'tool-call-start': {
          const events = close(open.filter((item) => item.kind !== 'function_call'), 'completed');
          const outputIndex = nextOutputIndex++;
          const call: OpenFunctionCall = {
            kind: 'function_call', id: deriveItemId('function_call', meta.id, outputIndex), outputIndex, callId: part.id, ...splitToolName(echo.toolNamespaces, part.name), arguments: '',
          };
          open.push(call);
          calls.set(part.index, call);
          yield* frames([...events, ...openItemEvents(call)]);
          break;
        }
        case 'tool-call-delta': {
          const call = calls.get(part.index);
          if (!call) throw new Error(`tool-call-delta for index ${part.index} arrived before its tool-call-start`);
          yield* frames(deltaEvents(call, part.argumentsDelta));
          break;
        }
        case 'finish': {
          const finish = mapFinishStatus(part.finishReason);
          const events = close(open, finish.status === 'completed' ? 'completed' : 'incomplete');
          const refusal = readRefusal(part.stopDetails);
          if (refusal !== undefined) {
            const outputIndex = nextOutputIndex++;
            const item = refusalItemEvents(deriveItemId('message', meta.id, outputIndex), outputIndex, refusal);
            output[outputIndex] = item.done;
            events.push(...item.events);
          }
          const response = snapshot({
            status: finish.status,
            usage: encodeUsage(part.usage, part.cost),
            error: finish.error,
            incompleteDetails: finish.incompleteDetails,
            completedAt: finish.status === 'completed' ? unixSeconds(clock) : null,
          });
          await options.onTerminal?.(response);
          yield* frames([...events, { type: `response.${finish.status}`, response }]);
          return;
        }
        case 'error':
          yield* frames(await failTerminal(part.error));
          return;
      }
    }
    // Every canonical stream ends with `finish` or `error`; one that does not was cut off.
    yield* frames([...start(), ...(await failTerminal({ code: 'upstream_error', message: 'The provider stream ended before the generation finished.' }))]);
  } catch (error) {
    // Once events are out, the client still gets a well-formed end; before that, the caller may
    // still answer with a plain error. Either way it sees the failure, to log and settle.
    if (started) yield* frames(fail({ code: 'internal_error', message: 'The gateway failed while streaming the response.' }));
    throw error;
  }
}
