import type { PassThroughInput, PassThroughPlan } from '../core/pass-through.js';
import type { TextRequest } from '../core/text-request.js';
import { textAdapters } from '../providers/protocols.js';
import type { Candidate } from '../catalog/candidate.js';

/** The types generation's own modules read from here; they are defined in core/, where the protocols read them too. */
export type { PassThroughInput, PassThroughPlan } from '../core/pass-through.js';

/**
 * The native pass-through (docs/api-decisions.md, "Native pass-through"): when the client's style
 * is the chosen endpoint's own protocol (Messages → anthropic, Chat Completions → openai, Gemini's
 * generateContent → gemini), the
 * client's body goes to the provider as it came, but for what the gateway must set, and the
 * provider's answer comes back in the style's official shape (the protocol's relay reads the
 * vendor's dialect), with the gateway's id, model and cost. The request
 * was decoded and checked as usual (field tables, routing, limits, reservation) all the same.
 *
 * A request is translated instead when, for the chosen endpoint, the gateway has to change more
 * than those fields: a top-level field that is not native to the protocol (a hint the gateway
 * does not forward, or a field it translates, such as `reasoning` on Chat Completions or
 * `output_format` on Messages); an assistant turn carrying the gateway's own reasoning fields
 * (Chat `reasoning_details`) or a signature tagged by another protocol; `cache_control` on Chat
 * Completions messages (OpenAI's API has none); or reasoning that routing made advisory for an
 * endpoint that does not reason. The decision is per candidate: a fallback of another protocol
 * is translated.
 *
 * The checks every protocol shares are made here; what is particular to one (its messages or
 * contents, its signatures, its field spellings) is the protocol's own, asked through its relay
 * (`providers/<protocol>/plan-pass-through.ts`).
 */
export function planPassThrough(input: PassThroughInput | undefined, candidate: Candidate, request: TextRequest): PassThroughPlan | undefined {
  if (!input) return undefined;
  const { body, rules } = input;
  if (candidate.provider.api !== rules.protocol || candidate.provider.passThrough === false) return undefined;
  if (request.reasoning && !candidate.endpoint.supportedParameters.includes('reasoning')) return undefined;
  // The cap (the client's, the endpoint's or what the funds allow) and the stream's usage are
  // set by the protocol's relay, in its own fields (providers/*/relay-*.ts).
  return textAdapters[rules.protocol].relay?.planPassThrough(body, rules, candidate.endpoint.model);
}
