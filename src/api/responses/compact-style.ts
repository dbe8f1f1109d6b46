import type { AppContext } from '../../app-context.js';
import type { Principal } from '../../auth/principal.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import type { TextStyle } from '../shared/handle-text-request.js';
import { encodeCompactionContent } from './compaction-item.js';
import { continuePreviousResponse } from './continue-previous-response.js';
import { decodeResponsesRequest } from './decode-request.js';
import { encodeResponsesStream } from './encode-stream.js';
import { encodeUsage } from './encode-usage.js';
import { toListedInputItems } from './list-input-items.js';
import type { ResponsesEcho } from './responses-echo.js';
import { findPriorTurn } from './stored-response-routes.js';

/** The fields of the `openai` SDK's `ResponseCompactParams`, plus OpenRouter's routing fields. */
const compactFields = new Set([
  'model', 'input', 'instructions', 'previous_response_id', 'prompt_cache_key', 'prompt_cache_options', 'prompt_cache_retention', 'service_tier', 'models', 'provider',
]);

/** The turn that asks the model for the summary, after the conversation it summarises. */
const summaryRequest =
  'Compact the conversation above into notes that let it continue without the original: keep every fact, decision, name, number, ' +
  'file, tool result that still matters, open task and stated preference. Write only the notes, no preamble.';

/**
 * `POST /v1/responses/compact` (OpenAI's `responses.compact`): the conversation (`input`, after
 * the stored turn `previous_response_id` names) becomes a shorter window to continue from — the
 * user's messages kept as they are, then one `compaction` item for everything else. No provider
 * protocol the gateway speaks upstream has a compaction call, so the gateway compacts with the
 * chosen model itself: one summarising turn, routed, reserved, charged and logged like any
 * request. The compaction item carries the summary (see `compaction-item.ts`) and becomes system
 * text when sent back, so the window continues on any model and protocol.
 */
export function createCompactStyle(context: AppContext, principal: Principal): TextStyle<ResponsesEcho> {
  let items: unknown[] = [];
  return {
    api: 'responses',
    prepare: async (body) => {
      for (const key of Object.keys(body)) if (!compactFields.has(key)) throw unsupportedParameter(key);
      const continued = await continuePreviousResponse(body, (id) => findPriorTurn(context, principal, id));
      items = continued.inputItems;
      if (items.length === 0) throw invalidRequest("'input' or 'previous_response_id' is required: there is nothing to compact", 'input');
      const { previous_response_id: _resolved, ...rest } = continued.body;
      return { ...rest, input: [...items, { type: 'message', role: 'user', content: summaryRequest }], store: false };
    },
    decode: (body) => {
      const { call, echo } = decodeResponsesRequest(body);
      return { call, extra: echo };
    },
    encodeResponse: (result, meta, cost) => {
      const summary = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      const kept = toListedInputItems(meta.id, items).filter((item) => item.type === 'message' && item.role === 'user');
      return {
        id: meta.id,
        object: 'response.compaction',
        created_at: meta.created,
        output: [...kept, { id: `cmp_${meta.id}`, type: 'compaction', encrypted_content: encodeCompactionContent(summary), created_by: meta.model }],
        usage: encodeUsage(result.usage, cost),
      };
    },
    // Never used: the compact body has no `stream` field, so the answer is always JSON.
    encodeStream: (parts, meta, echo) => encodeResponsesStream(parts, meta, echo, { clock: context.clock }),
    heartbeatFrame: ': keep-alive\n\n',
  };
}
