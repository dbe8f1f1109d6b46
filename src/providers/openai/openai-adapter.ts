import { performance } from 'node:perf_hooks';
import type { TextProviderAdapter } from '../provider-adapter.js';
import { parseSse } from '../shared/parse-sse.js';
import { postJson, toUpstreamError } from '../shared/send-request.js';
import { startProviderStream } from '../shared/start-provider-stream.js';
import { convertToChatCompletionsRequest } from './convert-request.js';
import { convertChatCompletionResponse } from './convert-response.js';
import { convertChatCompletionStream } from './convert-stream.js';
import { chatCompletionsRelay } from './relay-chat-completions.js';
import { authorizationHeaders, chatCompletionsUrl } from './transport.js';

/**
 * The `openai` wire protocol: OpenAI Chat Completions, and every server that speaks it under
 * another base URL (Groq, DeepSeek, Mistral, Together, vLLM, Ollama, OpenRouter).
 */
export const openaiAdapter: TextProviderAdapter = {
  api: 'openai',
  relay: chatCompletionsRelay,

  async generate(request, context) {
    const { provider } = context;
    const body = convertToChatCompletionsRequest(request, { providerModel: context.providerModel, baseUrl: provider.baseUrl, stream: false });
    const response = await postJson(context, chatCompletionsUrl(provider, context.providerModel), await authorizationHeaders(provider), body);
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw toUpstreamError(provider.id, error);
    }
    return convertChatCompletionResponse(text, provider.id);
  },

  async stream(request, context) {
    const { provider } = context;
    const body = convertToChatCompletionsRequest(request, { providerModel: context.providerModel, baseUrl: provider.baseUrl, stream: true });
    // The first-byte budget runs from sending the request to the first stream event.
    const deadline = performance.now() + provider.timeouts.firstByteMs;
    const response = await postJson(context, chatCompletionsUrl(provider, context.providerModel), await authorizationHeaders(provider), body);
    return startProviderStream(response.body, (chunks, options) => convertChatCompletionStream(parseSse(chunks), options), {
      providerId: provider.id,
      signal: context.signal,
      firstPartTimeoutMs: deadline - performance.now(),
    });
  },
};
