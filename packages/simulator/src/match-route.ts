import { anthropicProtocol } from './anthropic-protocol.js';
import { azureOpenaiProtocol } from './azure-openai-protocol.js';
import { bedrockConverseProtocol } from './bedrock-converse-protocol.js';
import { bedrockAnthropicProtocol } from './bedrock-protocols.js';
import { bedrockRetrievalModel, type BedrockRetrievalModel } from './simulate-bedrock-retrieval.js';
import { geminiProtocol } from './gemini-protocol.js';
import { openaiProtocol } from './openai-protocol.js';
import { vertexAnthropicProtocol, vertexGeminiProtocol } from './vertex-protocols.js';
import { matchVideoRoute, type VideoRoute } from './match-video-route.js';
import { matchMediaRoute, type MediaRoute } from './match-media-route.js';
import type { ProtocolAdapter, ProtocolRoute } from './protocol-adapter.js';

export type RouteMatch =
  | { kind: 'control'; path: string }
  | { kind: 'protocol'; adapter: ProtocolAdapter; route: ProtocolRoute }
  | { kind: 'video'; route: VideoRoute }
  | { kind: 'media'; route: MediaRoute }
  | { kind: 'bedrock-retrieval'; modelId: string; retrieval: BedrockRetrievalModel }
  | { kind: 'google-token' }
  | { kind: 'not-found' };

const GEMINI_PREFIX = '/gemini/v1beta/models/';
const AZURE_DEPLOYMENT_CHAT = /^\/azure\/openai\/deployments\/([^/]+)\/chat\/completions$/;

/** Maps a method and path onto the simulator's handlers; each base URL follows its vendor SDK. */
export function matchRoute(method: string, pathname: string, query: URLSearchParams): RouteMatch {
  if (pathname.startsWith('/_sim/')) return { kind: 'control', path: pathname.slice('/_sim'.length) };
  const video = matchVideoRoute(method, pathname);
  if (video) return { kind: 'video', route: video };
  const media = matchMediaRoute(method, pathname, query);
  if (media) return { kind: 'media', route: media };
  if (method !== 'POST') return { kind: 'not-found' };
  if (pathname === '/google/token') return { kind: 'google-token' };
  const vertex = VERTEX_MODEL_METHOD.exec(pathname);
  if (vertex) return matchVertexRoute(vertex[1]!, decodeModel(vertex[2]!), vertex[3]!, query);
  const bedrock = BEDROCK_MODEL_OPERATION.exec(pathname);
  if (bedrock) return matchBedrockRoute(decodeModel(bedrock[1]!), bedrock[2]!);
  if (pathname === '/openai/v1/chat/completions') return { kind: 'protocol', adapter: openaiProtocol, route: {} };
  if (pathname === '/azure/openai/v1/chat/completions') return { kind: 'protocol', adapter: azureOpenaiProtocol, route: {} };
  const deployment = AZURE_DEPLOYMENT_CHAT.exec(pathname);
  // Azure's deployment API answers 404 without an api-version.
  if (deployment && query.has('api-version')) {
    const model = decodeModel(deployment[1]!);
    return model === undefined ? { kind: 'not-found' } : { kind: 'protocol', adapter: azureOpenaiProtocol, route: { model } };
  }
  if (pathname === '/anthropic/v1/messages') return { kind: 'protocol', adapter: anthropicProtocol, route: {} };
  if (pathname === '/anthropic/v1/messages/count_tokens') return { kind: 'protocol', adapter: anthropicProtocol, route: { countTokens: true } };
  if (pathname.startsWith(GEMINI_PREFIX)) {
    const target = pathname.slice(GEMINI_PREFIX.length);
    // Model ids may themselves contain colons; the method is after the last one.
    const separator = target.lastIndexOf(':');
    if (separator <= 0) return { kind: 'not-found' };
    const model = decodeModel(target.slice(0, separator));
    if (model === undefined) return { kind: 'not-found' };
    const action = target.slice(separator + 1);
    if (action === 'generateContent') return { kind: 'protocol', adapter: geminiProtocol, route: { model, stream: false } };
    if (action === 'streamGenerateContent') {
      const framing = query.get('alt') === 'sse' ? 'sse-crlf' : 'json-array';
      return { kind: 'protocol', adapter: geminiProtocol, route: { model, stream: true, framing } };
    }
  }
  return { kind: 'not-found' };
}

/** `/vertex/v1/projects/{p}/locations/{l}/publishers/{publisher}/models/{model}:{method}`. */
const VERTEX_MODEL_METHOD = /^\/vertex\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/(google|anthropic)\/models\/([^/:]+):(\w+)$/;

function matchVertexRoute(publisher: string, model: string | undefined, action: string, query: URLSearchParams): RouteMatch {
  if (model === undefined) return { kind: 'not-found' };
  if (publisher === 'google') {
    if (action === 'generateContent') return { kind: 'protocol', adapter: vertexGeminiProtocol, route: { model, stream: false } };
    if (action === 'streamGenerateContent') return { kind: 'protocol', adapter: vertexGeminiProtocol, route: { model, stream: true, framing: query.get('alt') === 'sse' ? 'sse-crlf' : 'json-array' } };
    return { kind: 'not-found' };
  }
  if (action === 'rawPredict') return { kind: 'protocol', adapter: vertexAnthropicProtocol, route: { model, stream: false } };
  if (action === 'streamRawPredict') return { kind: 'protocol', adapter: vertexAnthropicProtocol, route: { model, stream: true } };
  return { kind: 'not-found' };
}

/** `/bedrock/model/{modelId}/{operation}`: the Bedrock runtime (base `https://bedrock-runtime.{region}.amazonaws.com`). */
const BEDROCK_MODEL_OPERATION = /^\/bedrock\/model\/([^/]+)\/([a-z-]+)$/;

function matchBedrockRoute(model: string | undefined, operation: string): RouteMatch {
  if (model === undefined) return { kind: 'not-found' };
  // Embedding and rerank models take their own InvokeModel bodies (simulate-bedrock-retrieval.ts).
  const retrieval = operation === 'invoke' ? bedrockRetrievalModel(model) : undefined;
  if (retrieval) return { kind: 'bedrock-retrieval', modelId: model, retrieval };
  if (operation === 'invoke') return { kind: 'protocol', adapter: bedrockAnthropicProtocol, route: { model, stream: false } };
  if (operation === 'invoke-with-response-stream') return { kind: 'protocol', adapter: bedrockAnthropicProtocol, route: { model, stream: true } };
  if (operation === 'converse') return { kind: 'protocol', adapter: bedrockConverseProtocol, route: { model, stream: false } };
  if (operation === 'converse-stream') return { kind: 'protocol', adapter: bedrockConverseProtocol, route: { model, stream: true } };
  return { kind: 'not-found' };
}

function decodeModel(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}
