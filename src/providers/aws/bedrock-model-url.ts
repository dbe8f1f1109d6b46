import type { ProviderConfig } from '../../config/types.js';

/**
 * A model's operation on the Bedrock runtime: `{base}/model/{modelId}/{operation}`, base
 * `https://bedrock-runtime.{region}.amazonaws.com`. The model id (a foundation model such as
 * `anthropic.claude-sonnet-4-5-20250929-v1:0`, an inference profile such as `us.anthropic.…`, or
 * an ARN) is one path segment, percent-encoded as AWS's SDKs send it.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html
 */
export function bedrockModelUrl(provider: ProviderConfig, modelId: string, operation: 'invoke' | 'invoke-with-response-stream' | 'converse' | 'converse-stream'): string {
  return `${provider.baseUrl.replace(/\/+$/, '')}/model/${encodeURIComponent(modelId)}/${operation}`;
}
