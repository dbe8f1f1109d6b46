import { GatewayError } from '../../errors/gateway-error.js';

export type GeminiAction = 'generateContent' | 'streamGenerateContent' | 'countTokens' | 'embedContent' | 'batchEmbedContents';

const actions: readonly string[] = ['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents'];

/**
 * `models/{model}:{action}`, where the model id keeps its `/` (`acme/gem`), as Gemini clients send
 * it unescaped: the route takes the rest of the path and splits it at the last `:` (a model id
 * may itself hold a `:`, as free models' `:free` does). A `%2F`-escaped id reads the same.
 */
export function readModelAction(path: string): { model: string; action: GeminiAction } {
  const at = path.lastIndexOf(':');
  const action = at < 0 ? '' : path.slice(at + 1);
  if (at <= 0 || !actions.includes(action)) {
    throw new GatewayError('not_found', `No method '${action || path}' on models: the Gemini style serves models/{model}:generateContent, :streamGenerateContent, :countTokens, :embedContent and :batchEmbedContents`);
  }
  return { model: decodeModel(path.slice(0, at)), action: action as GeminiAction };
}

export function decodeModel(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
