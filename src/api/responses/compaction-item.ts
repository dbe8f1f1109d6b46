import { invalidRequest } from '../../errors/gateway-error.js';

/**
 * The gateway's compaction items (`POST /responses/compact`). OpenAI's `encrypted_content` is a
 * blob only OpenAI reads; the gateway compacts with the model itself, on any provider, so its
 * blob must be readable by the gateway whatever model the next turn goes to: a tagged base64url
 * of the summary text. It is encoded, not encrypted — it holds the client's own conversation,
 * which the client already has.
 */
const tag = 'swy-compaction-v1.';

export function encodeCompactionContent(summary: string): string {
  return tag + Buffer.from(summary, 'utf8').toString('base64url');
}

/** The summary a compaction item carries; a blob of another issuer (OpenAI's own) cannot be read. */
export function decodeCompactionContent(content: string, path: string): string {
  if (!content.startsWith(tag)) {
    throw invalidRequest(
      `'${path}' is not a compaction this gateway produced (OpenAI's encrypted compactions only OpenAI reads); compact the conversation with POST /v1/responses/compact here`,
      path,
    );
  }
  return Buffer.from(content.slice(tag.length), 'base64url').toString('utf8');
}

/** How a compaction reaches any model: system text that introduces the summary. */
export function compactionSystemText(summary: string): string {
  return `Summary of the earlier part of this conversation (compacted):\n${summary}`;
}
