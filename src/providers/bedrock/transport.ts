import type { CallContext } from '../provider-adapter.js';
import { authHeaders } from '../shared/auth-headers.js';
import { sendRequest, type UpstreamResponse } from '../shared/send-request.js';

/**
 * Where a Converse call goes: `{base}/model/{modelId}/converse` (or `/converse-stream`), the
 * model id (which may hold `:` or be a whole ARN) as one encoded path segment.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_RequestSyntax
 */
export function converseUrl(baseUrl: string, modelId: string, stream: boolean): string {
  return `${baseUrl.replace(/\/+$/, '')}/model/${encodeURIComponent(modelId)}/${stream ? 'converse-stream' : 'converse'}`;
}

/**
 * POSTs a Converse body, authenticated as the provider is configured: a Bedrock API key as a
 * bearer token. A stream is asked for as AWS's event stream.
 */
export async function postConverse(context: CallContext, body: object, stream: boolean): Promise<UpstreamResponse> {
  const { provider } = context;
  const url = converseUrl(provider.baseUrl, context.providerModel, stream);
  const payload = JSON.stringify(body);
  const headers = {
    'content-type': 'application/json',
    accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json',
    ...provider.headers,
    ...(await authHeaders(provider.auth)),
  };
  return sendRequest(context, url, { method: 'POST', headers, body: payload });
}
