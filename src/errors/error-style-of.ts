import type { ErrorStyle } from './client-error-type.js';

const modelsApi = '/v1beta/models';
const callPrefix = '/v1/models/';

/**
 * Whether a request is the Gemini style's, so that every refusal of it (before routing, before
 * its key, before its body, or from its route) answers in Google's shape: anything under
 * `/v1beta/models` (Google's models API: list, get and the calls), and under `/v1` a
 * `POST /v1/models/{model}:{method}` call. Everything else under `/v1/models/` is the OpenRouter
 * catalog, in the envelope, though the call route's pattern (`/v1/models/*`) also matches it. The
 * path is read as the router reads it (percent-decoded when it decodes, one trailing slash
 * ignored); an undecodable one is read as sent, so a call with a bad escape is still a call.
 */
export function isGeminiStyleRequest(method: string | undefined, url: string | undefined): boolean {
  if (url === undefined) return false;
  const query = url.indexOf('?');
  let path = query < 0 ? url : url.slice(0, query);
  try {
    path = decodeURIComponent(path);
  } catch {
    // Refused before routing as undecodable: the style is still the caller's.
  }
  if (path.startsWith(modelsApi)) return path.length === modelsApi.length || path[modelsApi.length] === '/';
  if (method !== 'POST' || !path.startsWith(callPrefix)) return false;
  if (path.endsWith('/')) path = path.slice(0, -1);
  // `{model}:{method}`: the model id may hold `/` and `:` (`acme/gem:free`), the method neither.
  const at = path.lastIndexOf(':');
  return at > callPrefix.length && at < path.length - 1 && !path.includes('/', at);
}

/**
 * The error style of a request's refusal: Google's for a Gemini-style request, wherever it is
 * refused; otherwise its route's style, the envelope for a Gemini route's pattern matching a
 * path that is not a Gemini call, and for a path with no route.
 */
export function errorStyleOf(method: string | undefined, url: string | undefined, routeStyle: ErrorStyle | undefined): ErrorStyle {
  if (isGeminiStyleRequest(method, url)) return 'gemini';
  return routeStyle === undefined || routeStyle === 'gemini' ? 'openai' : routeStyle;
}
