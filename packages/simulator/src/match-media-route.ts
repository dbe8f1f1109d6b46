import { decodePathSegment } from './decode-path-segment.js';

/** A speech or image request, as `matchRoute` hands it over. */
export type MediaRoute =
  | { kind: 'openai-speech'; azure?: AzureMediaRoute }
  | { kind: 'openai-embeddings'; azure?: AzureMediaRoute }
  | { kind: 'openai-images'; operation: 'generate' | 'edit'; azure?: AzureMediaRoute }
  | { kind: 'gemini-speech'; model: string }
  | { kind: 'gemini-image'; model: string }
  | { kind: 'fal-submit'; modelId: string }
  | { kind: 'fal-status'; requestId: string }
  | { kind: 'fal-result'; requestId: string }
  | { kind: 'fal-file'; name: string };

/** Azure OpenAI's media routes: its key in `api-key`; on the deployment API, the deployment names the model. */
export interface AzureMediaRoute {
  deployment?: string;
}

const GEMINI_MODELS = '/gemini/v1beta/models/';
/** `/azure/openai/v1/{operation}` or `/azure/openai/deployments/{deployment}/{operation}` (the latter needs `?api-version=`). */
const AZURE_MEDIA = /^\/azure\/openai\/(?:v1|deployments\/([^/]+))\/(audio\/speech|images\/generations|images\/edits|embeddings)$/;
export const FAL_PREFIX = '/fal/';

/**
 * The media endpoints, each under its vendor SDK's base URL: OpenAI `POST /audio/speech`,
 * `/images/generations`, `/images/edits` and `/embeddings`; Gemini `generateContent` on a model whose name says
 * `tts` (speech) or `image` (images), as Google names them; fal's queue under `/fal` (the
 * simulator's stand-in for https://queue.fal.run): submit `POST /fal/{model_id}`, status
 * `GET /fal/{app}/requests/{id}/status`, result `GET /fal/{app}/requests/{id}`, and the images
 * themselves at `GET /fal/files/{name}` (fal.media's stand-in). Azure OpenAI's speech and images
 * under `/azure/openai/v1/` and `/azure/openai/deployments/{deployment}/…?api-version=`.
 */
export function matchMediaRoute(method: string, pathname: string, query?: URLSearchParams): MediaRoute | undefined {
  const azure = method === 'POST' ? AZURE_MEDIA.exec(pathname) : null;
  if (azure) {
    const [, encodedDeployment, operation] = azure;
    // Azure's deployment API answers 404 without an api-version, as for chat.
    if (encodedDeployment !== undefined && !query?.has('api-version')) return undefined;
    const route: AzureMediaRoute = encodedDeployment === undefined ? {} : { deployment: decodePathSegment(encodedDeployment) };
    if (operation === 'audio/speech') return { kind: 'openai-speech', azure: route };
    if (operation === 'embeddings') return { kind: 'openai-embeddings', azure: route };
    return { kind: 'openai-images', operation: operation === 'images/edits' ? 'edit' : 'generate', azure: route };
  }
  if (method === 'POST' && pathname === '/openai/v1/audio/speech') return { kind: 'openai-speech' };
  if (method === 'POST' && pathname === '/openai/v1/embeddings') return { kind: 'openai-embeddings' };
  if (method === 'POST' && pathname === '/openai/v1/images/generations') return { kind: 'openai-images', operation: 'generate' };
  if (method === 'POST' && pathname === '/openai/v1/images/edits') return { kind: 'openai-images', operation: 'edit' };
  if (method === 'POST' && pathname.startsWith(GEMINI_MODELS) && pathname.endsWith(':generateContent')) {
    const model = decodePathSegment(pathname.slice(GEMINI_MODELS.length, -':generateContent'.length));
    if (/tts/i.test(model)) return { kind: 'gemini-speech', model };
    if (/image/i.test(model)) return { kind: 'gemini-image', model };
    return undefined;
  }
  if (!pathname.startsWith(FAL_PREFIX)) return undefined;
  const rest = pathname.slice(FAL_PREFIX.length);
  if (method === 'GET' && rest.startsWith('files/')) return { kind: 'fal-file', name: decodePathSegment(rest.slice('files/'.length)) };
  const requests = /^(.+)\/requests\/([^/]+)(\/status)?$/.exec(rest);
  if (method === 'GET' && requests) return requests[3] ? { kind: 'fal-status', requestId: requests[2] } : { kind: 'fal-result', requestId: requests[2] };
  if (method === 'POST' && rest && !rest.includes('/requests/')) return { kind: 'fal-submit', modelId: rest };
  return undefined;
}
