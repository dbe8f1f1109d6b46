import type { AssistantContentPart } from '../../core/content.js';
import { encodeUrlCitation, type ChatAnnotation } from '../../wire/openai/encode-url-citation.js';

export { encodeUrlCitation as encodeAnnotation, type ChatAnnotation };

/** The citations of a result's text parts, each spanning its part within the joined `content`. */
export function encodeAnnotations(content: AssistantContentPart[]): ChatAnnotation[] {
  const annotations: ChatAnnotation[] = [];
  let offset = 0;
  for (const part of content) {
    if (part.type !== 'text') continue;
    for (const citation of part.citations ?? []) annotations.push(encodeUrlCitation(citation, offset, offset + part.text.length));
    offset += part.text.length;
  }
  return annotations;
}
