import type { ServerResponse } from 'node:http';
import { sendMediaJson } from './media-response.js';

/**
 * OpenAI `POST /moderations`, as its API reference describes it
 * (https://platform.openai.com/docs/api-reference/moderations): `input` is a string, an array of
 * strings (a result each) or an array of multi-modal parts (`text`, `image_url`; one result for
 * them all); `model` defaults to `omni-moderation-latest`. The omni models answer thirteen
 * categories with the input types each was applied to (images only for the sexual, self-harm and
 * violence ones); the text-moderation models answer eleven and refuse images. The answer has no
 * usage. Deterministic: an input is flagged when it holds one of `triggerWords`.
 */
const omniCategories = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
];
/** The categories OpenAI's guide says the omni models also score images for. */
const imageCategories = new Set(['self-harm', 'self-harm/intent', 'self-harm/instructions', 'sexual', 'violence', 'violence/graphic']);
const textCategories = omniCategories.filter((category) => !category.startsWith('illicit'));

/** A word in a text (or an image URL) that flags it, and the categories it flags. */
export const triggerWords: Record<string, string[]> = {
  kill: ['violence', 'harassment', 'harassment/threatening'],
  hate: ['hate', 'harassment'],
  gore: ['violence', 'violence/graphic'],
};

type Part = { type: 'text'; text: string } | { type: 'image'; url: string };

export function answerOpenAiModerations(response: ServerResponse, body: Record<string, unknown>, sequence: number): string | undefined {
  const model = body.model === undefined ? 'omni-moderation-latest' : body.model;
  if (typeof model !== 'string' || !model) return "Invalid type for 'model': expected a string.";
  const omni = !model.startsWith('text-moderation');
  const groups = readInput(body.input);
  if (typeof groups === 'string') return groups;
  if (!omni && groups.some((group) => group.some((part) => part.type === 'image'))) return `Model ${model} does not support image inputs.`;
  const results = groups.map((group) => classify(group, omni));
  sendMediaJson(response, 200, { id: `modr-${sequence.toString(16).padStart(32, '0')}`, model, results });
  return undefined;
}

/** The input as the groups that each get one result; a string is the problem. */
function readInput(input: unknown): Part[][] | string {
  if (typeof input === 'string') return [[{ type: 'text', text: input }]];
  if (!Array.isArray(input) || input.length === 0) return "'input' is required: a string, an array of strings or an array of multi-modal inputs.";
  if (input.every((entry) => typeof entry === 'string')) return input.map((text: string) => [{ type: 'text', text }]);
  const parts: Part[] = [];
  for (const [index, entry] of input.entries()) {
    const part = entry as { type?: unknown; text?: unknown; image_url?: { url?: unknown } } | null;
    if (part?.type === 'text' && typeof part.text === 'string') parts.push({ type: 'text', text: part.text });
    else if (part?.type === 'image_url' && typeof part.image_url?.url === 'string') parts.push({ type: 'image', url: part.image_url.url });
    else return `Invalid value for 'input[${index}]': expected a text or an image_url input.`;
  }
  return [parts];
}

function classify(parts: Part[], omni: boolean): Record<string, unknown> {
  const names = omni ? omniCategories : textCategories;
  const flaggedBy = new Map<string, Set<'text' | 'image'>>();
  for (const part of parts) {
    const words = (part.type === 'text' ? part.text : part.url).toLowerCase();
    for (const [word, hits] of Object.entries(triggerWords)) {
      if (!words.includes(word)) continue;
      for (const category of hits) {
        if (part.type === 'image' && !imageCategories.has(category)) continue;
        flaggedBy.set(category, (flaggedBy.get(category) ?? new Set()).add(part.type === 'text' ? 'text' : 'image'));
      }
    }
  }
  const hasImage = parts.some((part) => part.type === 'image');
  const hasText = parts.some((part) => part.type === 'text');
  const categories: Record<string, boolean> = {};
  const scores: Record<string, number> = {};
  const applied: Record<string, string[]> = {};
  for (const [index, name] of names.entries()) {
    categories[name] = flaggedBy.has(name);
    // Flagged: near certain; otherwise a small score that differs per category, as real answers do.
    scores[name] = flaggedBy.has(name) ? 0.98 - index / 1000 : (index + 1) * 1.3e-6;
    applied[name] = [...(hasText ? ['text'] : []), ...(hasImage && imageCategories.has(name) ? ['image'] : [])];
  }
  const result: Record<string, unknown> = { flagged: flaggedBy.size > 0, categories, category_scores: scores };
  if (omni) result.category_applied_input_types = applied;
  return result;
}
