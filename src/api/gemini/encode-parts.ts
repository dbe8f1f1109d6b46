import type { AssistantContentPart } from '../../core/content.js';
import { encodeGeminiSignature, isGeminiSignature } from './encode-signature.js';

/** One part of a Gemini answer, as the gateway writes it. */
export interface GeminiAnswerPart {
  text?: string;
  thought?: true;
  thoughtSignature?: string;
  functionCall?: { id: string; name: string; args: unknown };
}

/**
 * Canonical content → Gemini parts. Reasoning text is a thought part. Where a signature goes
 * depends on who made it: Gemini signs the part after its thinking (the gemini adapter keeps it on
 * the reasoning just before that part), so a Gemini signature moves to the next part, or to an
 * empty text part at the end, as Gemini sends it; another protocol's signature (Claude's) signs
 * its thinking, so it stays on the thought part. Claude's redacted thinking has no Gemini form
 * and is not sent (the next turn then carries no such block, which Claude accepts outside a
 * tool-use loop).
 */
export function encodeParts(content: readonly AssistantContentPart[]): GeminiAnswerPart[] {
  const parts: GeminiAnswerPart[] = [];
  let pending: string | undefined;
  const sign = (part: GeminiAnswerPart) => {
    if (pending !== undefined) part.thoughtSignature = pending;
    pending = undefined;
    parts.push(part);
  };
  for (const part of content) {
    if (part.type === 'reasoning') {
      if (part.redactedData !== undefined) continue;
      const geminiSigned = part.signature !== undefined && isGeminiSignature(part.signature);
      if (part.text !== '' || (part.signature !== undefined && !geminiSigned)) {
        const thought: GeminiAnswerPart = { text: part.text, thought: true };
        if (part.signature !== undefined && !geminiSigned) thought.thoughtSignature = part.signature;
        parts.push(thought);
      }
      if (geminiSigned) pending = encodeGeminiSignature(part.signature!);
    } else if (part.type === 'text') {
      sign({ text: part.text });
    } else {
      sign({ functionCall: { id: part.id, name: part.name, args: parseArguments(part.arguments) } });
    }
  }
  if (pending !== undefined) sign({ text: '' });
  return parts;
}

/**
 * Gemini sends arguments as a JSON object. Providers stream them as text: an empty text is no
 * arguments; text that is not a JSON object (a malformed call) is passed on under `arguments`, so
 * the client's own validation reports it.
 */
export function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : { arguments: parsed };
  } catch {
    return { arguments: text };
  }
}
