import type { ProviderConfig } from '../../config/types.js';
import type { CallContext } from '../provider-adapter.js';
import { getFromProvider } from '../shared/get-request.js';
import { postJson, readJsonObject } from '../shared/send-request.js';
import type { VideoProviderAdapter } from '../video-adapter.js';
import { convertToOpenAiVideoBody, readOpenAiJobId, readOpenAiVideoJob } from './videos-convert.js';
import type { OpenAiVideoJob } from './videos-wire-types.js';
import { authHeaders } from '../shared/auth-headers.js';

/**
 * OpenAI's Videos API (Sora): `POST {base}/videos` starts a job, `GET {base}/videos/{id}` tells
 * its status and progress, `GET {base}/videos/{id}/content` streams the MP4.
 * https://platform.openai.com/docs/api-reference/videos
 */
export const openaiVideosAdapter: VideoProviderAdapter = {
  api: 'openai',

  async submit(request, context) {
    const response = await postJson(context, videosUrl(context.provider), await authorization(context.provider), convertToOpenAiVideoBody(request, context.providerModel));
    const job = await readJsonObject<OpenAiVideoJob>(context.provider.id, response);
    const jobId = readOpenAiJobId(context.provider.id, job);
    const state = readOpenAiVideoJob(context.provider.id, job);
    if (state.state === 'failed') return { jobId, status: 'queued', progress: 0 };
    return { jobId, status: state.state === 'in_progress' ? 'in_progress' : 'queued', progress: state.state === 'completed' ? 100 : (state.progress ?? 0) };
  },

  async poll(jobId, context) {
    const response = await getFromProvider(context, `${videosUrl(context.provider)}/${encodeURIComponent(jobId)}`, await authorization(context.provider));
    return readOpenAiVideoJob(context.provider.id, await readJsonObject<OpenAiVideoJob>(context.provider.id, response));
  },

  async openContent(jobId, _result, context: CallContext) {
    return getFromProvider(context, `${videosUrl(context.provider)}/${encodeURIComponent(jobId)}/content`, await authorization(context.provider), { accept: 'application/binary' });
  },
};

function videosUrl(provider: ProviderConfig): string {
  return `${provider.baseUrl.replace(/\/+$/, '')}/videos`;
}

async function authorization(provider: ProviderConfig): Promise<Record<string, string>> {
  return authHeaders(provider.auth);
}
