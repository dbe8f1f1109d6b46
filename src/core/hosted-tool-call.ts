/**
 * A hosted tool call the gateway ran itself for a model whose endpoint has no such tool
 * (contract §4a), as each style shows it: Responses `web_search_call`, Messages `server_tool_use`
 * followed by its `web_search_tool_result` / `web_fetch_tool_result`.
 */
export type HostedToolCall =
  | {
      tool: 'web_search';
      /** The gateway's id for the call (`srvtoolu_…` in Messages, `ws_…` in Responses). */
      id: string;
      query: string;
      /** What the search found; empty with `error` when it failed. */
      results: { url: string; title: string; pageAge?: string }[];
      /** Why the search failed (told to the model too); a failed search is not charged. */
      error?: string;
    }
  | {
      tool: 'image_generation';
      id: string;
      prompt: string;
      /** The image the configured image model made (base64), charged at that model's price as its own request. */
      image?: { base64: string; mediaType: string };
      error?: string;
    }
  | {
      tool: 'web_fetch';
      id: string;
      url: string;
      page?: { title?: string; text: string; contentType: string };
      error?: string;
    };
