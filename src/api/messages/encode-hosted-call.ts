import type { HostedToolCall } from '../../core/hosted-tool-call.js';
import type { MessagesContentBlock } from '../../wire/anthropic/wire-types.js';

/**
 * A hosted tool call the gateway ran, as Anthropic's server tools show one: the `server_tool_use`
 * block, then its `web_search_tool_result` / `web_fetch_tool_result` (or the error variant).
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool#response
 */
export function encodeHostedCallBlocks(call: HostedToolCall): MessagesContentBlock[] {
  // Image generation is a Responses tool only; Messages clients never offer it.
  if (call.tool === 'image_generation') return [];
  if (call.tool === 'web_search') {
    return [
      { type: 'server_tool_use', id: call.id, name: 'web_search', input: { query: call.query } },
      {
        type: 'web_search_tool_result',
        tool_use_id: call.id,
        content:
          call.error === undefined
            ? call.results.map((result) => ({ type: 'web_search_result', url: result.url, title: result.title, encrypted_content: '', page_age: result.pageAge ?? null }))
            : { type: 'web_search_tool_result_error', error_code: call.error },
      },
    ];
  }
  return [
    { type: 'server_tool_use', id: call.id, name: 'web_fetch', input: { url: call.url } },
    {
      type: 'web_fetch_tool_result',
      tool_use_id: call.id,
      content:
        call.page === undefined
          ? { type: 'web_fetch_tool_error', error_code: call.error ?? 'url_not_accessible' }
          : {
              type: 'web_fetch_result',
              url: call.url,
              content: { type: 'document', source: { type: 'text', media_type: 'text/plain', data: call.page.text }, title: call.page.title ?? null },
              retrieved_at: new Date().toISOString(),
            },
    },
  ];
}
