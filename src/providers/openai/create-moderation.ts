import type { ModerationRequest, ModerationResultItem } from '../../core/moderation-request.js';
import type { ModerationAdapter } from '../retrieval-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { readJsonObject } from '../shared/send-request.js';
import { sendUpstream } from '../shared/send-upstream.js';
import { authorizationHeaders, openaiOperationUrl } from './transport.js';

interface OpenAIModerationResponse {
  id?: unknown;
  model?: unknown;
  results?: unknown;
}

/**
 * OpenAI moderations: POST {base}/moderations `{model, input}`, where `input` is a string, an
 * array of strings (one result each) or an array of multi-modal parts (`{type: 'text', text}`,
 * `{type: 'image_url', image_url: {url}}`, one result for them all). Image URLs are passed on as
 * given: OpenAI fetches them itself. The answer has no usage (the models are free), so the tokens
 * are the gateway's estimate. The text-moderation models take text only.
 * https://platform.openai.com/docs/api-reference/moderations/create
 * https://platform.openai.com/docs/guides/moderation
 */
export const openaiModerationAdapter: ModerationAdapter = {
  api: 'openai',
  incapability(request, providerModel) {
    if (/^text-moderation/.test(providerModel) && request.inputs.some((input) => input.type === 'image_url')) {
      return { field: 'input', reason: `holds an image_url, which '${providerModel}' does not accept (text-moderation models classify text only)` };
    }
    return undefined;
  },
  async moderate(request, context) {
    const { provider } = context;
    const headers = await authorizationHeaders(provider);
    const body = { model: context.providerModel, input: encodeInput(request) };
    const response = await sendUpstream(context, openaiOperationUrl(provider, context.providerModel, 'moderations'), { method: 'POST', headers, json: body });
    const answer = await readJsonObject<OpenAIModerationResponse>(provider.id, response);
    const expected = request.multimodal ? 1 : request.inputs.length;
    if (!Array.isArray(answer.results) || answer.results.length !== expected || answer.results.some((result) => typeof result !== 'object' || result === null)) {
      throw createProtocolError(provider.id, `answered a moderation without ${expected} result object(s)`, JSON.stringify(answer).slice(0, 500));
    }
    return { id: typeof answer.id === 'string' ? answer.id : '', results: answer.results as ModerationResultItem[], promptTokens: 0, estimated: true };
  },
};

function encodeInput(request: ModerationRequest): unknown {
  if (request.multimodal) {
    return request.inputs.map((input) => (input.type === 'text' ? { type: 'text', text: input.text } : { type: 'image_url', image_url: { url: input.url } }));
  }
  // Without `multimodal` every input is a text (the decoder makes it so).
  const texts = request.inputs.flatMap((input) => (input.type === 'text' ? [input.text] : []));
  return texts.length === 1 ? texts[0] : texts;
}
