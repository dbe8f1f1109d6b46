import type { AppContext } from '../../app-context.js';
import type { Principal } from '../../auth/principal.js';
import type { DecodedLine, LineCodec } from '../../batches/line-executor.js';
import { decodeEmbeddingRequest } from '../embeddings/decode-embedding-request.js';
import { encodeEmbeddingsResponse } from '../embeddings/encode-embeddings-response.js';
import { chatStyle } from '../chat-completions/routes.js';
import { messagesStyle } from '../messages/routes.js';
import { createResponsesStyle } from '../responses/responses-style.js';
import type { TextStyle } from '../shared/handle-text-request.js';

/**
 * The live endpoints' decoders and encoders for the batch engine's provider-batch executor
 * (`batches/run-provider-batch.ts`): a line's body decoded into the canonical request exactly as
 * a request to `/v1/chat/completions`, `/v1/responses`, `/v1/messages` or `/v1/embeddings` is
 * (Responses: `previous_response_id` resolved first, for the batch creator), and a provider's
 * answer encoded back into the body that live request would get (a Response is stored, as live).
 * Handed to the batch task by the composition root, like `runBatchLine`.
 */
export const batchLineCodec: LineCodec = {
  async decode(context, endpoint, body, principal): Promise<DecodedLine> {
    if (endpoint === '/v1/embeddings') {
      const decoded = decodeEmbeddingRequest(body);
      return { kind: 'embeddings', request: decoded.request, encode: (result, model, cost) => encodeEmbeddingsResponse(result, model, decoded.encoding, cost) };
    }
    const style = styleOf(context, endpoint, principal);
    // Validation refused `stream: true`; a line's answer is one JSON body.
    const input = { ...body, stream: false };
    const prepared = style.prepare ? await style.prepare(input) : input;
    // The styles read only the body and headers; a line has no headers (Messages' `anthropic-beta` is a header).
    const { call, extra } = style.decode(prepared, {}, undefined as never);
    return {
      kind: 'text',
      request: call.request,
      parameters: call.parameters,
      hostedTools: (call.offeredTools?.length ?? 0) > 0,
      preferences: call.route.provider,
      encode: async (result, meta, cost) => style.encodeResponse(result, meta, cost, extra),
    };
  },
};

/** The live text style of a batch endpoint (`/v1/chat/completions` when not Messages or Responses). */
export function styleOf(context: AppContext, endpoint: string, principal: Principal): TextStyle<unknown> {
  if (endpoint === '/v1/messages') return messagesStyle as TextStyle<unknown>;
  if (endpoint === '/v1/responses') return createResponsesStyle(context, principal) as TextStyle<unknown>;
  return chatStyle as TextStyle<unknown>;
}
