import type { PassThroughPlan, PassThroughRules } from '../../core/pass-through.js';
import { readSignatureTag } from '../../core/signature-tag.js';
import { readCamelCase } from '../../wire/gemini/read-camel-case.js';
import { forwardsEveryField, pickForwardedFields } from '../shared/pick-forwarded-fields.js';

/**
 * The Gemini style's pass-through to a gemini-wire endpoint (`generation/plan-pass-through.ts`
 * says when one is tried): the client's body, in camelCase as the style read it, goes as it came
 * but for the gateway's own fields and `model` (the URL carries it), and thought signatures the
 * gateway tagged as Gemini's, which lose their tag; the relay sets the output cap
 * (`relay-generate-content.ts`). Translated instead when a top-level field is not native to Gemini
 * in the style's field table (a hint the gateway does not forward), or when a signature is another
 * protocol's.
 */
export function planGenerateContentPassThrough(input: Record<string, unknown>, rules: PassThroughRules): PassThroughPlan | undefined {
  const body = readCamelCase(input);
  if (!forwardsEveryField(body, rules)) return undefined;
  const contents = contentsWithOwnSignatures(body.contents);
  if (contents === undefined) return undefined;
  const forwarded = pickForwardedFields(body, rules);
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
