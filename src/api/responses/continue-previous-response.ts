import { GatewayError, invalidRequest } from '../../errors/gateway-error.js';
import { isAbsent } from '../shared/read-json-fields.js';

/** What a later turn needs of an earlier response: the items the model read, and its output. */
export interface PriorTurn {
  inputItems: unknown[];
  output: unknown[];
}

/** Finds an earlier response the caller may continue from; undefined when unknown, expired or not theirs. */
export type PriorTurnLookup = (id: string) => Promise<PriorTurn | undefined>;

export interface ContinuedRequest {
  /** The body to decode: `input` holds the earlier turn's items, its output, then the new input. */
  body: Record<string, unknown>;
  /** The items this response reads (what is stored as its input items). */
  inputItems: unknown[];
  previousResponseId: string | null;
}

/**
 * `previous_response_id`: the stored turn's input items and output items come before the new
 * input, as OpenAI does it. Its `instructions` are not carried over (OpenAI's rule: send them
 * again). The items are replayed through the same decoder as any client's, so a chain may
 * change model, provider and protocol at any turn; reasoning signatures are tagged with the
 * protocol that issued them and reach only that protocol again (`generation/tag-signatures.ts`).
 */
export async function continuePreviousResponse(body: Record<string, unknown>, lookup: PriorTurnLookup): Promise<ContinuedRequest> {
  const newItems = isAbsent(body.input) ? [] : normalizeInput(body.input);
  if (isAbsent(body.previous_response_id)) return { body, inputItems: newItems, previousResponseId: null };
  const id = body.previous_response_id;
  if (typeof id !== 'string' || id === '') throw invalidRequest("'previous_response_id' must be a non-empty string", 'previous_response_id');
  const prior = await lookup(id);
  if (!prior) {
    throw new GatewayError('previous_response_not_found', `Previous response with id '${id.slice(0, 200)}' not found.`, { param: 'previous_response_id' });
  }
  const inputItems = [...prior.inputItems, ...prior.output, ...newItems];
  const { previous_response_id: _continued, ...rest } = body;
  return { body: { ...rest, input: inputItems }, inputItems, previousResponseId: id };
}

/** `input` as a list of items: a string is one user message. Anything else is left for the decoder to judge. */
function normalizeInput(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  return Array.isArray(input) ? input : [input];
}
