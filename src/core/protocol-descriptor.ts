/**
 * Every provider wire protocol, described once: its name and what it can serve. The `api` type
 * of the config, the config schema's choices, signature tagging, the field tables' columns and the
 * adapter registry (`providers/protocols.ts`, which the compiler holds to this list) all derive
 * from here, so a new protocol is one entry plus its adapters — forgetting one is a type error,
 * not a broken reasoning round trip at run time.
 *
 * Plain data in `core/`, with no imports, so that configuration and the API styles can read it
 * without loading any adapter (the adapters, which carry behaviour, stay in `providers/`).
 */
export const protocolDescriptors = {
  openai: { name: 'OpenAI Chat Completions (and OpenAI-compatible servers)', text: true, speech: true, images: true, video: true, embeddings: true, rerank: false, moderations: false },
  anthropic: { name: 'Anthropic Messages', text: true, speech: false, images: false, video: false, embeddings: false, rerank: false, moderations: false },
  gemini: { name: 'Google Gemini generateContent', text: true, speech: true, images: true, video: true, embeddings: false, rerank: false, moderations: false },
  bedrock: { name: 'AWS Bedrock Converse', text: true, speech: false, images: false, video: false, embeddings: false, rerank: false, moderations: false },
  fal: { name: "fal.ai's queue API", text: false, speech: false, images: true, video: false, embeddings: false, rerank: false, moderations: false },
  // Retrieval vendors: embeddings and rerank only (https://docs.cohere.com/reference/embed,
  // https://docs.voyageai.com/reference/embeddings-api, https://jina.ai/reranker/).
  cohere: { name: "Cohere's v2 API (embed, rerank)", text: false, speech: false, images: false, video: false, embeddings: false, rerank: false, moderations: false },
  voyage: { name: "Voyage AI's API (embeddings, rerank)", text: false, speech: false, images: false, video: false, embeddings: false, rerank: false, moderations: false },
  jina: { name: "Jina AI's API (embeddings, rerank)", text: false, speech: false, images: false, video: false, embeddings: false, rerank: false, moderations: false },
} as const;

/**
 * The `supported_parameters` a text endpoint gets when its config lists none: the sampling and
 * length parameters every model behind the protocol takes (the request body fields each vendor's
 * reference lists for all its text models). Capabilities that vary by model — tools, structured
 * output, reasoning, web search — are never assumed: the operator lists them. Canonical names
 * (`core/text-request.ts`); the config's check holds them to that list.
 */
export const defaultTextParameters: { readonly [Api in TextProviderApi]: readonly string[] } = {
  // https://platform.openai.com/docs/api-reference/chat/create
  openai: ['max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'frequency_penalty', 'presence_penalty'],
  // https://docs.anthropic.com/en/api/messages
  anthropic: ['max_tokens', 'temperature', 'top_p', 'top_k', 'stop'],
  // https://ai.google.dev/api/generate-content#generationconfig
  gemini: ['max_tokens', 'temperature', 'top_p', 'top_k', 'stop', 'seed', 'frequency_penalty', 'presence_penalty'],
  // https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InferenceConfiguration.html
  bedrock: ['max_tokens', 'temperature', 'top_p', 'stop'],
};

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

export function isTextProviderApi(value: string): value is TextProviderApi {
  return (textProviderApis as readonly string[]).includes(value);
}
