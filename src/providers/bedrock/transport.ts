import { bedrockModelUrl } from '../aws/bedrock-model-url.js';
import type { CallContext } from '../provider-adapter.js';
import { authHeaders } from '../shared/auth-headers.js';
import { sendRequest, type UpstreamResponse } from '../shared/send-request.js';

/**
 * POSTs a Converse body to `{base}/model/{modelId}/converse` (or `/converse-stream`, answered as
 * AWS's event stream). A Bedrock API key goes as a bearer token; AWS access keys sign the request
 * in `sendRequest`, where it is final. https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
export async function postConverse(context: CallContext, body: object, stream: boolean): Promise<UpstreamResponse> {
  const { provider } = context;
  const url = bedrockModelUrl(provider, context.providerModel, stream ? 'converse-stream' : 'converse');
  const payload = JSON.stringify(body);
  const headers = {
    'content-type': 'application/json',
    accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json',
    ...provider.headers,
    ...(await authHeaders(provider.auth)),
  };
  return sendRequest(context, url, { method: 'POST', headers, body: payload });
}
