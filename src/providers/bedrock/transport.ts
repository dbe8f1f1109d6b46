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

/**
 * POSTs a model's own body to InvokeModel (`{base}/model/{modelId}/invoke`): the wire of Bedrock's
 * embedding and rerank models, which Converse does not carry. Same credentials as Converse: a
 * Bedrock API key (bearer), or AWS keys that `sendRequest` signs for service `bedrock`.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html
 */
export async function postInvokeModel(context: CallContext, body: object): Promise<UpstreamResponse> {
  const { provider } = context;
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json',
    ...provider.headers,
    ...(await authHeaders(provider.auth)),
  };
  return sendRequest(context, bedrockModelUrl(provider, context.providerModel, 'invoke'), { method: 'POST', headers, body: JSON.stringify(body) });
}

/**
 * The input tokens Bedrock counted for an InvokeModel call, from its `X-Amzn-Bedrock-Input-Token-Count`
 * response header (Bedrock sends it beside every model's own body); undefined when absent.
 */
export function readInputTokenCountHeader(response: UpstreamResponse): number | undefined {
  const value = response.headers['x-amzn-bedrock-input-token-count'];
  const count = Number(Array.isArray(value) ? value[0] : value);
  return typeof value !== 'undefined' && Number.isInteger(count) && count >= 0 ? count : undefined;
}
