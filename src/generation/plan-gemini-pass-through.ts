import type { TextRequest } from '../core/text-request.js';
import { readCamelCase } from '../wire/gemini/read-camel-case.js';
import type { Candidate } from '../routing/candidate.js';
import type { PassThroughPlan, PassThroughRules } from './plan-pass-through.js';
import { readSignatureTag } from './tag-signatures.js';

/**
 * The Gemini style's pass-through (see `plan-pass-through.ts`), to a gemini-wire endpoint: the
 * client's body, in camelCase as the style read it, goes as it came but for the gateway's own
 * fields and `model` (the URL carries it), and thought signatures the gateway tagged as Gemini's,
 * which lose their tag; the relay sets the output cap. Translated instead when a top-level field
 * is not native to Gemini in the style's field table (a hint the gateway does not forward), when a
 * signature is another protocol's, or when reasoning the endpoint cannot do was asked for.
 */
export function planGeminiPassThrough(input: Record<string, unknown>, rules: PassThroughRules, candidate: Candidate, request: TextRequest): PassThroughPlan | undefined {
  const body = readCamelCase(input);
  for (const field in body) if (!rules.forwardable.has(field)) return undefined;
  if (request.reasoning && !candidate.endpoint.supportedParameters.includes('reasoning')) return undefined;
  const contents = contentsWithOwnSignatures(body.contents);
  if (contents === undefined) return undefined;
  const forwarded: Record<string, unknown> = {};
  for (const field in body) if (!rules.gatewayOnly.includes(field)) forwarded[field] = body[field];
  forwarded.contents = contents;
  return { body: forwarded };
}

/** The contents as they are (a copy only where a tag was removed), or undefined to translate. */
function contentsWithOwnSignatures(contents: unknown): unknown[] | undefined {
  if (!Array.isArray(contents)) return undefined;
  let copied: unknown[] | undefined;
  for (let index = 0; index < contents.length; index += 1) {
    const content = contents[index] as { parts?: unknown };
    if (!Array.isArray(content?.parts)) continue;
    let parts: unknown[] | undefined;
    for (let at = 0; at < content.parts.length; at += 1) {
      const part = content.parts[at] as { thoughtSignature?: unknown };
      if (typeof part?.thoughtSignature !== 'string') continue;
      const tagged = readSignatureTag(part.thoughtSignature);
      if (!tagged) continue;
      if (tagged.api !== 'gemini') return undefined;
      parts ??= [...content.parts];
      parts[at] = { ...part, thoughtSignature: tagged.signature };
    }
    if (parts) {
      copied ??= [...contents];
      copied[index] = { ...content, parts };
    }
  }
  return copied ?? contents;
}
