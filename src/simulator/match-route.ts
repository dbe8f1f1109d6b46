import { anthropicProtocol } from './anthropic-protocol.js';
import { geminiProtocol } from './gemini-protocol.js';
import { openaiProtocol } from './openai-protocol.js';
import type { ProtocolAdapter, ProtocolRoute } from './protocol-adapter.js';

export type RouteMatch =
  | { kind: 'control'; path: string }
  | { kind: 'protocol'; adapter: ProtocolAdapter; route: ProtocolRoute }
  | { kind: 'not-found' };

const GEMINI_PREFIX = '/gemini/v1beta/models/';

/** Maps a method and path onto the simulator's handlers; each base URL follows its vendor SDK. */
export function matchRoute(method: string, pathname: string, query: URLSearchParams): RouteMatch {
  if (pathname.startsWith('/_sim/')) return { kind: 'control', path: pathname.slice('/_sim'.length) };
  if (method !== 'POST') return { kind: 'not-found' };
  if (pathname === '/openai/v1/chat/completions') return { kind: 'protocol', adapter: openaiProtocol, route: {} };
  if (pathname === '/anthropic/v1/messages') return { kind: 'protocol', adapter: anthropicProtocol, route: {} };
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

function decodeModel(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}
