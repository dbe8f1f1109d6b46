import type { ProviderConfig } from '../../config/types.js';
import type { CallContext } from '../provider-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { getFromProvider } from '../shared/get-request.js';
import { postJson, readJsonObject } from '../shared/send-request.js';
import type { VideoProviderAdapter } from '../video-adapter.js';
import { mapHttpError } from './map-error.js';
import { convertToVeoBody, readOperationName, readVeoOperation } from './veo-convert.js';
import type { VeoOperation } from './veo-wire-types.js';
import { geminiHeaders } from './transport.js';

/**
 * Veo on the Gemini API: `POST {base}/models/{model}:predictLongRunning` answers a long-running
 * operation `{name}`; `GET {base}/{name}` answers it with `done` and, when done, the video's file
 * URI, which is downloaded with the same API key. https://ai.google.dev/gemini-api/docs/video
 */
export const veoVideosAdapter: VideoProviderAdapter = {
  api: 'gemini',

  async submit(request, context) {
    const url = `${base(context.provider)}/models/${encodeURIComponent(context.providerModel)}:predictLongRunning`;
    const body = convertToVeoBody(request);
    const response = await call(async () => postJson(context, url, await geminiHeaders(context.provider), body));
    const operation = await readJsonObject<VeoOperation>(context.provider.id, response);
    return { jobId: readOperationName(context.provider.id, operation), status: 'queued', progress: 0 };
  },

  async poll(jobId, context) {
    const response = await call(async () => getFromProvider(context, `${base(context.provider)}/${jobId}`, await geminiHeaders(context.provider)));
    return readVeoOperation(context.provider.id, await readJsonObject<VeoOperation>(context.provider.id, response));
  },

  openContent(_jobId, result, context: CallContext) {
    const uri = typeof result.uri === 'string' ? result.uri : '';
    if (safeOrigin(uri) === undefined) return Promise.reject(createProtocolError(context.provider.id, 'named no downloadable video URI', JSON.stringify(result)));
    // The key goes only to the provider's own host; a URI elsewhere is fetched without it.
    const sameOrigin = safeOrigin(uri) !== undefined && safeOrigin(uri) === safeOrigin(context.provider.baseUrl);
    return call(async () => getFromProvider(context, uri, sameOrigin ? await geminiHeaders(context.provider) : {}, { accept: '*/*', followRedirects: true }));
  },
};

function base(provider: ProviderConfig): string {
  return provider.baseUrl.replace(/\/+$/, '');
}


async function call<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw mapHttpError(error);
  }
}

function safeOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}
