import type { HostedToolCall } from '../../core/hosted-tool-call.js';
import type { ImageGenerationCallItem, WebSearchCallItem } from './responses-wire.js';

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

/** An image the gateway made, as the `image_generation_call` item of OpenAI's hosted tool. */
export function encodeImageGenerationCallItem(call: Extract<HostedToolCall, { tool: 'image_generation' }>): ImageGenerationCallItem {
  return { id: `ig_${call.id.replace(/^srvtoolu_/, '')}`, type: 'image_generation_call', status: call.image ? 'completed' : 'failed', result: call.image?.base64 ?? null };
}

/** The hosted calls a Responses client sees: searches and images (a web fetch exists only in the Messages style). */
export function encodeHostedCallItems(calls: readonly HostedToolCall[] | undefined): Array<WebSearchCallItem | ImageGenerationCallItem> {
  const items: Array<WebSearchCallItem | ImageGenerationCallItem> = [];
  for (const call of calls ?? []) {
    if (call.tool === 'web_search') items.push(encodeWebSearchCallItem(call));
    if (call.tool === 'image_generation') items.push(encodeImageGenerationCallItem(call));
  }
  return items;
}
