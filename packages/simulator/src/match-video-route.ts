import { decodePathSegment } from './decode-path-segment.js';

/** A video request of either protocol, as `matchRoute` hands it over. */
export type VideoRoute =
  | { protocol: 'openai'; action: 'create' }
  | { protocol: 'openai'; action: 'retrieve' | 'content'; jobId: string }
  | { protocol: 'gemini'; action: 'create'; model: string }
  | { protocol: 'gemini'; action: 'operation'; name: string }
  | { protocol: 'gemini'; action: 'download' | 'storage'; fileId: string };

const OPENAI_VIDEOS = '/openai/v1/videos';
const GEMINI_BASE = '/gemini/v1beta/';

/**
 * The video endpoints, each under its vendor SDK's base URL: OpenAI's Videos API
 * (`POST /videos`, `GET /videos/{id}`, `GET /videos/{id}/content`) and Veo's long-running
 * operations (`POST models/{model}:predictLongRunning`, `GET {operation name}`, the file
 * download `GET files/{id}:download?alt=media`, which redirects to `/gemini/storage/{id}` as
 * Google redirects to its storage host).
 */
export function matchVideoRoute(method: string, pathname: string): VideoRoute | undefined {
  if (pathname === OPENAI_VIDEOS) return method === 'POST' ? { protocol: 'openai', action: 'create' } : undefined;
  if (pathname.startsWith(`${OPENAI_VIDEOS}/`)) {
    if (method !== 'GET') return undefined;
    const rest = pathname.slice(OPENAI_VIDEOS.length + 1).split('/').map(decodePathSegment);
    if (rest.length === 1 && rest[0]) return { protocol: 'openai', action: 'retrieve', jobId: rest[0] };
    if (rest.length === 2 && rest[0] && rest[1] === 'content') return { protocol: 'openai', action: 'content', jobId: rest[0] };
    return undefined;
  }
  if (pathname.startsWith('/gemini/storage/') && method === 'GET') return { protocol: 'gemini', action: 'storage', fileId: pathname.slice('/gemini/storage/'.length) };
  if (!pathname.startsWith(GEMINI_BASE)) return undefined;
  const rest = pathname.slice(GEMINI_BASE.length);
  if (method === 'POST' && rest.startsWith('models/') && rest.endsWith(':predictLongRunning')) {
    const model = decodePathSegment(rest.slice('models/'.length, -':predictLongRunning'.length));
    return model ? { protocol: 'gemini', action: 'create', model } : undefined;
  }
  if (method !== 'GET') return undefined;
  if (/^models\/[^/]+\/operations\/[^/]+$/.test(rest)) return { protocol: 'gemini', action: 'operation', name: rest };
  const download = /^files\/([^/:]+):download$/.exec(rest);
  if (download) return { protocol: 'gemini', action: 'download', fileId: download[1] };
  return undefined;
}
