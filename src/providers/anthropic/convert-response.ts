import type { AssistantContentPart } from '../../core/content.js';
import type { TextResult } from '../../core/text-result.js';
import { mapAnthropicCitations, mapSearchResults } from './map-citation.js';
import { mapAnthropicFinishReason } from './map-finish-reason.js';
import { mapAnthropicUsage } from './map-usage.js';
import type { AnthropicMessage, AnthropicResponseBlock } from '../../wire/anthropic/wire-types.js';
import { asObjects } from '../shared/lenient-json.js';

/**
 * Anthropic Message → canonical result. Block types the gateway never asks for (server tool
 * results, citations-only blocks…) are skipped.
 */
export function convertAnthropicResponse(message: AnthropicMessage): TextResult {
  const content: AssistantContentPart[] = [];
  const blocks = asObjects<AnthropicResponseBlock>(message.content);
  for (const block of blocks) {
    const part = convertBlock(block);
    if (part) content.push(part);
  }
  addSearchSources(content, blocks);
  return {
    ...(message.id !== undefined && { providerResponseId: message.id }),
    ...(message.model !== undefined && { providerModel: message.model }),
    content,
    finishReason: mapAnthropicFinishReason(message.stop_reason),
    ...(typeof message.stop_sequence === 'string' && { stopSequence: message.stop_sequence }),
    ...(typeof message.stop_details?.type === 'string' && { stopDetails: { ...message.stop_details, type: message.stop_details.type } }),
    usage: mapAnthropicUsage(message.usage),
  };
}

/**
 * Pages the web search found but no text cites still are the answer's sources: they join the
 * citations of the last text part.
 */
function addSearchSources(content: AssistantContentPart[], blocks: AnthropicResponseBlock[]): void {
  const lastText = content.findLast((part) => part.type === 'text');
  if (lastText?.type !== 'text') return;
  const known = new Set(content.flatMap((part) => (part.type === 'text' ? (part.citations ?? []).map((citation) => citation.url) : [])));
  const sources = blocks.flatMap((block) => (block.type === 'web_search_tool_result' ? mapSearchResults(block.content, known) : []));
  if (sources.length > 0) lastText.citations = [...(lastText.citations ?? []), ...sources];
}

function convertBlock(block: AnthropicResponseBlock): AssistantContentPart | undefined {
  switch (block.type) {
    case 'text': {
      const citations = mapAnthropicCitations(block.citations);
      return { type: 'text', text: block.text ?? '', ...(citations.length > 0 && { citations }) };
    }
    case 'tool_use':
      return { type: 'tool-call', id: block.id ?? '', name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) };
    case 'thinking':
      return { type: 'reasoning', text: block.thinking ?? '', ...(block.signature && { signature: block.signature }) };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redactedData: block.data ?? '' };
    default:
      return undefined;
  }
}
