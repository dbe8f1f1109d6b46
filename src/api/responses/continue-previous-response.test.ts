import { describe, expect, it } from 'vitest';
import { untagRequestSignatures } from '../../generation/tag-signatures.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { continuePreviousResponse, type PriorTurn } from './continue-previous-response.js';
import { decodeResponsesRequest } from './decode-request.js';

const prior: PriorTurn = {
  inputItems: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'first question' }] }],
  output: [
    { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'thinking it over' }], encrypted_content: 'anthropic:sig-abc' },
    { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'first answer', annotations: [], logprobs: [] }] },
  ],
};
const lookup = async (id: string) => (id === 'resp_1' ? prior : undefined);

describe('continuePreviousResponse', () => {
  it('puts the stored input and output items before the new input, and leaves a request without one as it is', async () => {
    const continued = await continuePreviousResponse({ model: 'm', previous_response_id: 'resp_1', input: 'second question', instructions: 'be brief' }, lookup);
    expect(continued.previousResponseId).toBe('resp_1');
    expect(continued.body).not.toHaveProperty('previous_response_id');
    expect(continued.body.instructions).toBe('be brief');
    expect(continued.inputItems).toEqual([...prior.inputItems, ...prior.output, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'second question' }] }]);
    const plain = { model: 'm', input: 'hi' };
    expect((await continuePreviousResponse(plain, lookup)).body).toBe(plain);
  });

  it('answers an id the lookup does not find with 404 previous_response_not_found naming the field', async () => {
    const error = await continuePreviousResponse({ model: 'm', previous_response_id: 'resp_gone', input: 'x' }, lookup).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'previous_response_not_found', status: 404, param: 'previous_response_id' });
  });

  it('carries reasoning signed to the protocol that issued it, and unsigned to any other', async () => {
    const continued = await continuePreviousResponse({ model: 'm', previous_response_id: 'resp_1', input: 'second question' }, lookup);
    const { request } = decodeResponsesRequest(continued.body).call;
    const reasoningOf = (api: 'anthropic' | 'gemini') => untagRequestSignatures(request, api).messages[1].content[0];
    expect(reasoningOf('anthropic')).toEqual({ type: 'reasoning', text: 'thinking it over', signature: 'sig-abc' });
    expect(reasoningOf('gemini')).toEqual({ type: 'reasoning', text: 'thinking it over' });
  });
});
