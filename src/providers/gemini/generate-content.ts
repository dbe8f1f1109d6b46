import type { CallContext } from '../provider-adapter.js';
import { readJsonObject } from '../shared/send-request.js';
import { sendUpstream } from '../shared/send-upstream.js';
import type { GeminiResponse } from './gemini-wire-types.js';
import { mapError, mapHttpError } from './map-error.js';
import { geminiHeaders, geminiModelUrl } from './transport.js';

/** One non-streaming `generateContent` call with Gemini's error conventions, for speech and images. */
export async function generateContent(context: CallContext, body: unknown): Promise<GeminiResponse> {
  const url = geminiModelUrl(context.provider, context.providerModel, 'generateContent');
  let result: GeminiResponse;
  try {
    const response = await sendUpstream(context, url, { method: 'POST', json: body, headers: await geminiHeaders(context.provider) });
    result = await readJsonObject<GeminiResponse>(context.provider.id, response);
  } catch (error) {
    throw mapHttpError(error);
  }
  if (result.error) throw mapError(context.provider.id, result.error);
  return result;
}
