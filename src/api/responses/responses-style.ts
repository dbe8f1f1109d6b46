import type { AppContext } from '../../app-context.js';
import type { Principal } from '../../auth/principal.js';
import type { TextStyle } from '../shared/handle-text-request.js';
import { continuePreviousResponse, type PriorTurnLookup } from './continue-previous-response.js';
import { decodeResponsesRequest } from './decode-request.js';
import { encodeResponsesResponse } from './encode-response.js';
import { encodeResponsesStream } from './encode-stream.js';
import type { ResponsesEcho } from './responses-echo.js';
import type { DecodedTextCall } from '../../core/text-call.js';
import type { ResponseObject } from './responses-wire.js';
import { findPriorTurn } from './stored-response-routes.js';
import { storeResponse } from './store-response.js';

export interface ResponsesTurnOptions {
  /** Where `previous_response_id` is looked up; default the caller's stored responses. */
  lookup?: PriorTurnLookup;
  /** Called with every finished Response and the items it read (WebSocket mode keeps them per connection). */
  onFinished?: (response: ResponseObject, inputItems: unknown[]) => void;
  /** Nobody pays for this turn (a WebSocket warm-up): stored as free, bounded per account. */
  free?: boolean;
}

/**
 * The Responses style for one request of one principal: `previous_response_id` resolved before
 * decoding, the echo completed with what that resolution decided, and a finished Response
 * stored (`store`, default true) before the client reads its end.
 */
export interface ResponsesStyle extends TextStyle<ResponsesEcho> {
  /** Stores (and reports) a finished Response; the stream encoder calls it before the terminal event. */
  onTerminal(response: ResponseObject): Promise<void>;
  /** Continues from a stored (or the socket's own) response before decoding. */
  prepare(body: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Reads the body alone: a WebSocket message has no HTTP request of its own. */
  decode(body: Record<string, unknown>): { call: DecodedTextCall; extra: ResponsesEcho };
}

export function createResponsesStyle(context: AppContext, principal: Principal, options: ResponsesTurnOptions = {}): ResponsesStyle {
  const lookup = options.lookup ?? ((id: string) => findPriorTurn(context, principal, id));
  let inputItems: unknown[] = [];
  let previousResponseId: string | null = null;
  const finish = async (response: ResponseObject) => {
    options.onFinished?.(response, inputItems);
    if (response.store) await storeResponse(context, principal, response, inputItems, options.free);
  };
  return {
    api: 'responses',
    onTerminal: finish,
    prepare: async (body) => {
      const continued = await continuePreviousResponse(body, lookup);
      inputItems = continued.inputItems;
      previousResponseId = continued.previousResponseId;
      return continued.body;
    },
    decode: (body) => {
      const { call, echo } = decodeResponsesRequest(body);
      echo.previous_response_id = previousResponseId;
      return { call, extra: echo };
    },
    encodeResponse: async (result, meta, cost, echo) => {
      const response = encodeResponsesResponse(result, meta, cost, echo, { clock: context.clock });
      await finish(response);
      return response;
    },
    encodeStream: (parts, meta, echo) => encodeResponsesStream(parts, meta, echo, { clock: context.clock, onTerminal: finish }),
    heartbeatFrame: ': keep-alive\n\n',
  };
}
