import type { HostedToolCall } from '../../core/hosted-tool-call.js';
import type { WebSearchCallItem } from './responses-wire.js';

/**
 * A search the gateway ran, as the `web_search_call` item OpenAI's hosted tool produces (the
 * action with its query and the sources it found); a failed search has status `failed`.
 * https://platform.openai.com/docs/guides/tools-web-search#output-and-citations
 */
export function encodeWebSearchCallItem(call: Extract<HostedToolCall, { tool: 'web_search' }>): WebSearchCallItem {
  return {
    id: `ws_${call.id.replace(/^srvtoolu_/, '')}`,
    type: 'web_search_call',
    status: call.error === undefined ? 'completed' : 'failed',
    action: { type: 'search', query: call.query, sources: call.results.map((result) => ({ type: 'url', url: result.url })) },
  };
}

/** The hosted calls a Responses client sees: searches (a web fetch exists only in the Messages style). */
export function encodeHostedCallItems(calls: readonly HostedToolCall[] | undefined): WebSearchCallItem[] {
  const items: WebSearchCallItem[] = [];
  for (const call of calls ?? []) if (call.tool === 'web_search') items.push(encodeWebSearchCallItem(call));
  return items;
}
