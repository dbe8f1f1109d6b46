/**
 * Every provider wire protocol, described once: its name and what it can serve. The `api` type
 * of the config, the config schema's choices, signature tagging, the field tables' columns and the
 * adapter registry (`providers/protocols.ts`, which the compiler holds to this list) all derive
 * from here, so a new protocol is one entry plus its adapters — forgetting one is a type error,
 * not a broken reasoning round trip at run time.
 *
 * This module has no imports, so that configuration and the API styles can read it without
 * loading any adapter.
 */
export const protocolDescriptors = {
  openai: { name: 'OpenAI Chat Completions (and OpenAI-compatible servers)', text: true, speech: true, images: true, video: true },
  anthropic: { name: 'Anthropic Messages', text: true, speech: false, images: false, video: false },
  gemini: { name: 'Google Gemini generateContent', text: true, speech: true, images: true, video: true },
  bedrock: { name: 'AWS Bedrock Converse', text: true, speech: false, images: false, video: false },
  fal: { name: "fal.ai's queue API", text: false, speech: false, images: true, video: false },
} as const;

type Descriptors = typeof protocolDescriptors;

/** A provider's wire protocol (`api` in the config). */
export type ProviderApi = keyof Descriptors;

/** The protocols that can serve text models: the columns of the styles' field tables. */
export type TextProviderApi = { [Api in ProviderApi]: Descriptors[Api]['text'] extends true ? Api : never }[ProviderApi];

export const providerApis = Object.keys(protocolDescriptors) as ProviderApi[];

export const textProviderApis = providerApis.filter((api): api is TextProviderApi => protocolDescriptors[api].text);

export function isProviderApi(value: string): value is ProviderApi {
  return Object.hasOwn(protocolDescriptors, value);
}
