import type { HostedToolCall } from '../../core/hosted-tool-call.js';
import type { StreamError, StreamPart } from '../../core/stream-part.js';
import type { Usage } from '../../core/usage.js';
import type { ResponseMeta } from '../shared/text-call.js';
import { encodeCitation } from './encode-citation.js';
import { encodeUsage } from './encode-usage.js';
import { encodeHostedCallBlocks } from './encode-hosted-call.js';
import type { MessagesContentBlock } from '../../wire/anthropic/wire-types.js';
import { clientErrorType } from '../../errors/client-error-type.js';
import { mapStopReason } from './map-stop-reason.js';

type BlockKind = 'text' | 'thinking' | 'redacted_thinking' | 'tool_use' | 'server_tool_use' | 'server_tool_result';

interface OpenBlock {
  index: number;
  kind: BlockKind;
  /** A thinking block whose signature has been sent. */
  signed: boolean;
}

/**
 * Canonical stream parts → Anthropic Messages SSE events (`event: name\ndata: {…}\n\n`):
 * `message_start`, `ping`, one `content_block_start`/`_delta`/`_stop` group per block, then
 * `message_delta` (stop reason and the cumulative usage with `cost`) and `message_stop`.
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming
 *
 * `message_start` carries the input counts when the provider sent them at its start (Anthropic
 * does), else zeros; the final counts (input tokens included) come in `message_delta`, which
 * clients read as the totals.
 * A failure ends the stream with an `error` event, which the Anthropic SDKs raise as `APIError`.
 */
export async function* encodeMessagesStream(parts: AsyncIterable<StreamPart>, meta: ResponseMeta): AsyncGenerator<string> {
  let started = false;
  let nextIndex = 0;
  /** The block being written, if any; Anthropic never interleaves blocks. */
  let open: OpenBlock | undefined;
  /** Block index of each tool call, by canonical tool index. */
  const toolBlocks = new Map<number, number>();

  // Refilled for every delta and serialized at once, so a delta allocates only its payload and frame.
  const deltaEvent: { type: 'content_block_delta'; index: number; delta: object } = { type: 'content_block_delta', index: 0, delta: {} };
  const delta = (index: number, payload: object): string => {
    deltaEvent.index = index;
    deltaEvent.delta = payload;
    return event('content_block_delta', deltaEvent);
  };

  function* startBlock(kind: BlockKind, contentBlock: object): Generator<string, OpenBlock> {
    yield* closeBlock();
    const block: OpenBlock = { index: nextIndex++, kind, signed: false };
    open = block;
    yield event('content_block_start', { type: 'content_block_start', index: block.index, content_block: contentBlock });
    return block;
  }
  /** Continues the open text or thinking block; a signature completes a thinking block. */
  function* continueBlock(kind: 'text' | 'thinking'): Generator<string, OpenBlock> {
    if (open !== undefined && open.kind === kind && !open.signed) return open;
    return yield* startBlock(kind, kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' });
  }
  function* closeBlock(): Generator<string> {
    if (open === undefined) return;
    yield event('content_block_stop', { type: 'content_block_stop', index: open.index });
    open = undefined;
  }

  /** The hosted calls whose `server_tool_use` block went out, by id. */
  const usesSent = new Set<string>();
  /** As Anthropic streams a server tool's use: the block with its input as one JSON delta. */
  function* hostedUse(call: HostedToolCall): Generator<string> {
    const [use] = encodeHostedCallBlocks(call);
    if (use === undefined) return;
    usesSent.add(call.id);
    const { input, ...start } = use as Extract<MessagesContentBlock, { type: 'server_tool_use' }>;
    const block = yield* startBlock('server_tool_use', { ...start, input: {} });
    yield delta(block.index, { type: 'input_json_delta', partial_json: JSON.stringify(input) });
    yield* closeBlock();
  }

  for await (const part of parts) {
    if (!started && part.type !== 'error') {
      started = true;
      yield messageStart(meta, part.type === 'start' ? part.usage : undefined);
      yield event('ping', { type: 'ping' });
    }
    switch (part.type) {
      case 'text-delta': {
        if (part.text === '') break;
        const block = yield* continueBlock('text');
        yield delta(block.index, { type: 'text_delta', text: part.text });
        break;
      }
      case 'reasoning-delta': {
        if (part.text === '') break;
        const block = yield* continueBlock('thinking');
        yield delta(block.index, { type: 'thinking_delta', thinking: part.text });
        break;
      }
      case 'reasoning-signature': {
        const block = yield* continueBlock('thinking');
        block.signed = true;
        yield delta(block.index, { type: 'signature_delta', signature: part.signature });
        break;
      }
      case 'citation': {
        // It cites the text block just written, which is still open.
        const block = yield* continueBlock('text');
        yield delta(block.index, { type: 'citations_delta', citation: encodeCitation(part.citation) });
        break;
      }
      case 'reasoning-redacted':
        yield* startBlock('redacted_thinking', { type: 'redacted_thinking', data: part.data });
        yield* closeBlock();
        break;
      case 'hosted-tool-start':
        yield* hostedUse(part.call);
        break;
      case 'hosted-tool-call': {
        // Its use went out as it started (else now), then the whole result block.
        if (!usesSent.has(part.call.id)) yield* hostedUse(part.call);
        const result = encodeHostedCallBlocks(part.call)[1];
        if (result === undefined) break;
        yield* startBlock('server_tool_result', result);
        yield* closeBlock();
        break;
      }
      case 'tool-call-start': {
        const block = yield* startBlock('tool_use', { type: 'tool_use', id: part.id, name: part.name, input: {} });
        toolBlocks.set(part.index, block.index);
        break;
      }
      case 'tool-call-delta': {
        // Sent to the call's own block; upstreams stream one call at a time, so it is the open one.
        const index = toolBlocks.get(part.index);
        if (index !== undefined && part.argumentsDelta !== '') yield delta(index, { type: 'input_json_delta', partial_json: part.argumentsDelta });
        break;
      }
      case 'finish':
        yield* closeBlock();
        yield event('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: mapStopReason(part.finishReason, part.stopSequence), stop_sequence: part.stopSequence ?? null, stop_details: part.stopDetails ?? null },
          usage: encodeUsage(part.usage, part.cost),
        });
        yield event('message_stop', { type: 'message_stop' });
        return;
      case 'error':
        yield errorEvent(part.error, meta);
        return;
      case 'start':
        break;
    }
  }
  // Every canonical stream ends with `finish` or `error`; one that does not was cut short.
  yield errorEvent({ code: 'internal_error', message: 'The generation stream ended unexpectedly', status: 500 }, meta);
}

function messageStart(meta: ResponseMeta, usage: Usage | undefined): string {
  const counts = usage ? encodeUsage({ ...usage, completionTokens: 0, reasoningTokens: undefined, delegated: undefined }, undefined) : undefined;
  return event('message_start', {
    type: 'message_start',
    message: {
      id: meta.id,
      type: 'message',
      role: 'assistant',
      model: meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      usage: counts ?? { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  });
}

/** Anthropic's error body, with the gateway envelope's `code`, `status` and `metadata` beside `type`. */
export function errorEvent(error: StreamError, meta: ResponseMeta): string {
  return event('error', {
    type: 'error',
    error: {
      type: clientErrorType('anthropic', error.status, error.code),
      message: error.message,
      code: error.code,
      status: error.status,
      metadata: { request_id: meta.id },
    },
    request_id: meta.id,
  });
}

function event(name: string, payload: object): string {
  return `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;
}
