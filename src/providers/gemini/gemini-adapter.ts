import { performance } from 'node:perf_hooks';
import type { CallContext, TextProviderAdapter } from '../provider-adapter.js';
import { parseSse } from '../shared/parse-sse.js';
import { postJson, readJsonObject, type UpstreamResponse } from '../shared/send-request.js';
import { startProviderStream } from '../shared/start-provider-stream.js';
import { convertRequest, type ConvertRequestOptions } from './convert-request.js';
import { convertResponse } from './convert-response.js';
import { convertStream } from './convert-stream.js';
import type { GeminiResponse } from './gemini-wire-types.js';
import { mapError, mapHttpError } from './map-error.js';
import { generateContentRelay } from './relay-generate-content.js';
import { geminiHeaders, geminiModelUrl } from './transport.js';

/**
 * The Gemini API (`generateContent` / `streamGenerateContent`). The base URL includes the
 * version, e.g. https://generativelanguage.googleapis.com/v1beta.
 * https://ai.google.dev/api/generate-content
 */
export const geminiAdapter: TextProviderAdapter = {
  api: 'gemini',
  relay: generateContentRelay,

  async generate(request, context) {
    const body = convertRequest(request, requestOptions(context));
    const response = await send(context, geminiModelUrl(context.provider, context.providerModel, 'generateContent'), body);
    const result = await readJsonObject<GeminiResponse>(context.provider.id, response);
    if (result.error) throw mapError(context.provider.id, result.error);
    return convertResponse(result);
  },

  async stream(request, context) {
    // The first-byte budget runs from sending the request to the first stream part.
    const deadline = performance.now() + context.provider.timeouts.firstByteMs;
    const body = convertRequest(request, requestOptions(context));
    const response = await send(context, `${geminiModelUrl(context.provider, context.providerModel, 'streamGenerateContent')}?alt=sse`, body);
    return startProviderStream(response.body, (chunks, options) => convertStream(parseSse(chunks), options), {
      providerId: context.provider.id,
      signal: context.signal,
      firstPartTimeoutMs: deadline - performance.now(),
    });
  },
};

async function send(context: CallContext, url: string, body: unknown): Promise<UpstreamResponse> {
  try {
    return await postJson(context, url, await geminiHeaders(context.provider), body);
  } catch (error) {
    throw mapHttpError(error);
  }
}

function requestOptions(context: CallContext): ConvertRequestOptions {
  return convertOptionsFor(context.providerModel);
}

/** Gemini 3 and later reject replayed function calls without a thought signature. Shared with batch mode (`batch-adapter.ts`). */
export function convertOptionsFor(providerModel: string): ConvertRequestOptions {
  const major = /^gemini-(\d+)/.exec(providerModel)?.[1];
  return { requireSignedFunctionCalls: major !== undefined && Number(major) >= 3 };
}
