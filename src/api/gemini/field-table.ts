import { onEveryProtocol, perProtocol, type FieldTable } from '../shared/field-table.js';

/** Gemini's own knob with no equivalent elsewhere that changes nothing a client relies on. */
const geminiHint = (note: string) => perProtocol({ openai: { kind: 'hint', note }, anthropic: { kind: 'hint', note }, gemini: { kind: 'native' }, bedrock: { kind: 'hint', note } });
/** A Gemini API field other protocols have no use for: relayed to Gemini, a hint elsewhere. */
const geminiNative = (note: string) => perProtocol({ openai: { kind: 'hint', note }, anthropic: { kind: 'hint', note }, gemini: { kind: 'native', note: 'relayed as sent; not forwarded when translated' }, bedrock: { kind: 'hint', note } });
/** A Gemini API feature the gateway cannot provide on any protocol: a 400 naming the field. */
const refusedEverywhere = (why: string) => onEveryProtocol('refused', why);

/**
 * Every field of the Gemini API's `GenerateContentRequest` as `@google/genai` sends it (the REST
 * body: `contents`, the `GenerateContentConfig` fields the SDK lifts to the top level, and the
 * rest under `generationConfig`), plus OpenRouter's `models` and `provider`, with the handling per
 * provider protocol. The decoder refuses any field without a row; `test/fields/gemini-field-table.test.ts`
 * holds the table against the SDK's `GenerateContentConfig`, `GenerationConfig`, `ThinkingConfig`,
 * `ToolConfig`, `FunctionCallingConfig` and `Tool` types.
 *
 * The model comes from the URL (`models/{model}:generateContent`); `model` in the body is accepted
 * as the REST API accepts it. The REST API also takes snake_case names (`system_instruction`,
 * `generation_config`), which the decoder reads as their camelCase rows.
 */
export const geminiFieldTable: FieldTable = [
  { field: 'model', handling: onEveryProtocol('translated', 'from the URL (models/{model}); catalog model id, replaced by the endpoint’s model name') },
  { field: 'models', handling: onEveryProtocol('emulated', 'fallback models tried in order (OpenRouter)') },
  { field: 'provider', handling: onEveryProtocol('emulated', 'endpoint preferences (OpenRouter)') },
  { field: 'contents', handling: perProtocol({
    openai: { kind: 'translated', note: 'messages: text, inlineData/fileData images, functionCall → tool_calls, functionResponse → tool messages' },
    anthropic: { kind: 'translated', note: 'messages: text, images, functionCall → tool_use, functionResponse → tool_result, thought parts → thinking' },
    gemini: { kind: 'native' },
    bedrock: { kind: 'translated', note: 'messages: text, inlineData images (bytes; fileData URLs refused), functionCall → toolUse, functionResponse → toolResult, signed thought parts → reasoningContent' },
  }) },
  { field: 'systemInstruction', handling: perProtocol({ openai: { kind: 'translated', note: 'system message' }, anthropic: { kind: 'translated', note: 'system' }, gemini: { kind: 'native' }, bedrock: { kind: 'translated', note: 'system blocks' } }) },
  { field: 'tools', handling: perProtocol({
    openai: { kind: 'translated', note: 'functionDeclarations → function tools; googleSearch → web_search_options; other tools refused' },
    anthropic: { kind: 'translated', note: 'functionDeclarations → custom tools; googleSearch → web_search; other tools refused' },
    gemini: { kind: 'native', note: 'functionDeclarations and googleSearch; other tools refused' },
    bedrock: { kind: 'translated', note: 'functionDeclarations → toolSpec; googleSearch: Converse runs no search (a preference); other tools refused' },
  }) },
  { field: 'tools[].functionDeclarations', handling: perProtocol({ openai: { kind: 'translated', note: 'function tools (parameters or parametersJsonSchema)' }, anthropic: { kind: 'translated', note: 'custom tools' }, gemini: { kind: 'native' }, bedrock: { kind: 'translated', note: 'toolConfig.tools' } }) },
  { field: 'tools[].googleSearch', handling: perProtocol({
    openai: { kind: 'translated', note: 'web_search_options; a preference: left out where the endpoint has no search, named in x-switchyard-omitted' },
    anthropic: { kind: 'translated', note: 'web_search tool; a preference' },
    gemini: { kind: 'native', note: 'a preference' },
    bedrock: { kind: 'hint', note: 'Converse runs no search; a preference: left out, named in x-switchyard-omitted' },
  }) },
  { field: 'tools[].googleSearchRetrieval', handling: refusedEverywhere('the Gemini 1.5 search tool: send googleSearch instead') },
  { field: 'tools[].codeExecution', handling: refusedEverywhere('code execution runs only inside Google’s API, which the gateway does not offer as a hosted tool') },
  { field: 'tools[].urlContext', handling: refusedEverywhere('URL context runs only inside Google’s API; fetch the page and send its text') },
  { field: 'tools[].fileSearch', handling: refusedEverywhere('file search stores live in Google’s API, not in the gateway') },
  { field: 'tools[].googleMaps', handling: refusedEverywhere('Maps grounding runs only inside Google’s API') },
  { field: 'tools[].computerUse', handling: refusedEverywhere('computer use is not offered by the gateway') },
  { field: 'tools[].retrieval', handling: refusedEverywhere('Vertex AI retrieval: not a Gemini API tool') },
  { field: 'tools[].enterpriseWebSearch', handling: refusedEverywhere('Vertex AI enterprise search: not a Gemini API tool') },
  { field: 'tools[].exaAiSearch', handling: refusedEverywhere('Vertex AI search tool: not a Gemini API tool') },
  { field: 'tools[].parallelAiSearch', handling: refusedEverywhere('Vertex AI search tool: not a Gemini API tool') },
  { field: 'tools[].mcpServers', handling: refusedEverywhere('remote MCP servers are called by the client SDK, not sent to the API') },
  { field: 'toolConfig', handling: perProtocol({ openai: { kind: 'translated', note: 'tool_choice' }, anthropic: { kind: 'translated', note: 'tool_choice' }, gemini: { kind: 'native' }, bedrock: { kind: 'translated', note: 'toolConfig.toolChoice' } }) },
  { field: 'toolConfig.functionCallingConfig', handling: perProtocol({
    openai: { kind: 'translated', note: 'mode AUTO/VALIDATED → auto, ANY → required (one allowed name → that function; several → only those tools offered), NONE → none' },
    anthropic: { kind: 'translated', note: 'as for openai: auto, any, tool, none' },
    gemini: { kind: 'native' },
    bedrock: { kind: 'translated', note: 'AUTO → auto, ANY → any (one allowed name → tool), NONE → tools left out' },
  }) },
  { field: 'toolConfig.retrievalConfig', handling: geminiHint('location for Maps grounding, which no other protocol has') },
  { field: 'toolConfig.includeServerSideToolInvocations', handling: geminiHint('server-side tool calls are not shown in the answer') },
  { field: 'safetySettings', handling: geminiHint('no safety thresholds to set; the provider’s own policy applies') },
  { field: 'cachedContent', handling: refusedEverywhere('a context cache is a resource of Google’s API, which the gateway does not store; send the content itself') },
  { field: 'labels', handling: geminiNative('billing labels: the gateway’s request log is the record') },
  { field: 'serviceTier', handling: geminiNative('the endpoint’s own tier serves the request') },
  { field: 'store', handling: geminiNative('the gateway keeps no generated content; its request log records usage') },
  { field: 'continuationToken', handling: refusedEverywhere('continues an answer that stopped with CONTINUATION, which the gateway never returns') },
  { field: 'modelArmorConfig', handling: refusedEverywhere('Vertex AI’s Model Armor: not a Gemini API field') },
  { field: 'generationOutputConfig', handling: refusedEverywhere('Vertex AI’s output storage: not a Gemini API field') },
  { field: 'generationConfig', handling: perProtocol({
    openai: { kind: 'translated', note: 'each field as its own row says' },
    anthropic: { kind: 'translated', note: 'each field as its own row says' },
    gemini: { kind: 'native', note: 'relayed as sent; each field as its own row says when translated' },
    bedrock: { kind: 'translated', note: 'each field as its own row says' },
  }) },
  { field: 'generationConfig.temperature', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'native', note: 'Anthropic caps it at 1' }, gemini: { kind: 'native' }, bedrock: { kind: 'translated', note: 'inferenceConfig.temperature' } }) },
  { field: 'generationConfig.topP', handling: perProtocol({ openai: { kind: 'translated', note: 'top_p' }, anthropic: { kind: 'translated', note: 'top_p; with temperature also set on a Claude family that refuses both (Opus 4.1, 4.5 and later): left out and named in x-switchyard-omitted' }, gemini: { kind: 'native' }, bedrock: { kind: 'translated', note: 'inferenceConfig.topP; with temperature also set on a Claude family that refuses both (Opus 4.1, 4.5 and later): left out and named in x-switchyard-omitted' } }) },
  { field: 'generationConfig.topK', handling: perProtocol({
    openai: { kind: 'translated', note: 'top_k where the endpoint takes it; a preference (Gemini CLI sends 64, OpenAI has none): else left out, named in x-switchyard-omitted' },
    anthropic: { kind: 'translated', note: 'top_k; a preference' },
    gemini: { kind: 'native', note: 'a preference' },
    bedrock: { kind: 'translated', note: 'additionalModelRequestFields top_k (Claude, Mistral) or inferenceConfig.topK (Nova); a preference' },
  }) },
  { field: 'generationConfig.candidateCount', handling: onEveryProtocol('refused', 'one candidate per request; 1 is accepted') },
  { field: 'generationConfig.maxOutputTokens', handling: perProtocol({ openai: { kind: 'translated', note: 'max_completion_tokens' }, anthropic: { kind: 'translated', note: 'max_tokens (the endpoint’s cap when absent)' }, gemini: { kind: 'native' }, bedrock: { kind: 'translated', note: 'inferenceConfig.maxTokens' } }) },
  { field: 'generationConfig.stopSequences', handling: perProtocol({ openai: { kind: 'translated', note: 'stop' }, anthropic: { kind: 'translated', note: 'stop_sequences' }, gemini: { kind: 'native' }, bedrock: { kind: 'translated', note: 'inferenceConfig.stopSequences' } }) },
  { field: 'generationConfig.responseLogprobs', handling: onEveryProtocol('refused', 'log probabilities are not returned by the gateway; false is accepted') },
  { field: 'generationConfig.logprobs', handling: onEveryProtocol('refused', 'log probabilities are not returned by the gateway') },
  { field: 'generationConfig.presencePenalty', handling: perProtocol({ openai: { kind: 'translated', note: 'presence_penalty' }, anthropic: { kind: 'refused', note: 'routing: Anthropic has no penalty' }, gemini: { kind: 'native' }, bedrock: { kind: 'refused', note: 'routing: Converse has no penalty' } }) },
  { field: 'generationConfig.frequencyPenalty', handling: perProtocol({ openai: { kind: 'translated', note: 'frequency_penalty' }, anthropic: { kind: 'refused', note: 'routing: Anthropic has no penalty' }, gemini: { kind: 'native' }, bedrock: { kind: 'refused', note: 'routing: Converse has no penalty' } }) },
  { field: 'generationConfig.seed', handling: perProtocol({ openai: { kind: 'translated', note: 'seed' }, anthropic: { kind: 'refused', note: 'routing: Anthropic has no seed' }, gemini: { kind: 'native' }, bedrock: { kind: 'refused', note: 'routing: Converse has no seed' } }) },
  { field: 'generationConfig.responseMimeType', handling: perProtocol({
    openai: { kind: 'translated', note: 'application/json → response_format json_object (json_schema with a schema); text/plain: nothing' },
    anthropic: { kind: 'translated', note: 'with a schema: output_config.format; application/json alone: refused by routing (no JSON mode)' },
    gemini: { kind: 'native' },
    bedrock: { kind: 'translated', note: 'with a schema: outputConfig.textFormat; application/json alone: refused (no JSON mode without a schema)' },
  }) },
  { field: 'generationConfig.responseSchema', handling: perProtocol({
    openai: { kind: 'translated', note: 'OpenAPI schema → JSON Schema → response_format json_schema' },
    anthropic: { kind: 'translated', note: 'OpenAPI schema → JSON Schema → output_config.format' },
    gemini: { kind: 'translated', note: 'OpenAPI schema → JSON Schema → responseJsonSchema' },
    bedrock: { kind: 'translated', note: 'OpenAPI schema → JSON Schema → outputConfig.textFormat' },
  }) },
  { field: 'generationConfig.responseJsonSchema', handling: perProtocol({ openai: { kind: 'translated', note: 'response_format json_schema' }, anthropic: { kind: 'translated', note: 'output_config.format' }, gemini: { kind: 'native' }, bedrock: { kind: 'translated', note: 'outputConfig.textFormat' } }) },
  { field: 'generationConfig.responseFormat', handling: refusedEverywhere('the Interactions API’s output formats: send responseMimeType and responseJsonSchema') },
  { field: 'generationConfig.responseModalities', handling: refusedEverywhere('text models answer in text: ["TEXT"] is accepted, image and audio output are not') },
  { field: 'generationConfig.mediaResolution', handling: perProtocol({ openai: { kind: 'hint', note: 'images go at the provider’s default resolution' }, anthropic: { kind: 'hint', note: 'images go at the provider’s default resolution' }, gemini: { kind: 'hint', note: 'not forwarded when translated' }, bedrock: { kind: 'hint', note: 'images go at the provider’s default resolution' } }) },
  { field: 'generationConfig.speechConfig', handling: refusedEverywhere('speech output: use POST /v1/audio/speech') },
  { field: 'generationConfig.audioTranscriptionConfig', handling: refusedEverywhere('audio output transcription: text models answer in text') },
  { field: 'generationConfig.audioTimestamp', handling: refusedEverywhere('audio input is not accepted by the gateway’s text styles') },
  { field: 'generationConfig.imageConfig', handling: refusedEverywhere('image output: use POST /v1/images/generations') },
  { field: 'generationConfig.enableEnhancedCivicAnswers', handling: onEveryProtocol('hint', 'the provider’s default answers') },
  { field: 'generationConfig.enableAffectiveDialog', handling: onEveryProtocol('hint', 'a Live API setting; no effect on generateContent') },
  { field: 'generationConfig.translationConfig', handling: refusedEverywhere('speech translation: text models answer in text') },
  { field: 'generationConfig.routingConfig', handling: refusedEverywhere('Vertex AI model routing: the gateway routes by models and provider') },
  { field: 'generationConfig.modelSelectionConfig', handling: refusedEverywhere('Vertex AI model selection: the gateway routes by models and provider') },
  { field: 'generationConfig.thinkingConfig', handling: perProtocol({
    openai: { kind: 'translated', note: 'reasoning_effort; a preference: left out where the model does not reason, named in x-switchyard-omitted' },
    anthropic: { kind: 'translated', note: 'thinking (budget → budget_tokens, -1 → adaptive, 0 → off); a preference' },
    gemini: { kind: 'native', note: 'a preference: left out where the model does not reason' },
    bedrock: { kind: 'translated', note: 'additionalModelRequestFields: Claude thinking, Nova reasoningConfig, gpt-oss reasoning_effort; a preference' },
  }) },
  { field: 'generationConfig.thinkingConfig.thinkingBudget', handling: perProtocol({
    openai: { kind: 'translated', note: 'reasoning_effort (≤ 2048 low, ≤ 8192 medium, else high; -1 the model’s default; 0 no reasoning)' },
    anthropic: { kind: 'translated', note: 'thinking.budget_tokens (-1 adaptive, 0 off)' },
    gemini: { kind: 'native' },
    bedrock: { kind: 'translated', note: 'Claude thinking.budget_tokens (-1 adaptive); Nova and gpt-oss an effort (≤ 2048 low, ≤ 8192 medium, else high)' },
  }) },
  { field: 'generationConfig.thinkingConfig.thinkingLevel', handling: perProtocol({
    openai: { kind: 'translated', note: 'reasoning_effort (MINIMAL minimal, LOW low, MEDIUM medium, HIGH high)' },
    anthropic: { kind: 'translated', note: 'thinking budget of that effort' },
    gemini: { kind: 'translated', note: 'thinkingBudget of that effort' },
    bedrock: { kind: 'translated', note: 'the thinking budget (Claude) or effort (Nova, gpt-oss) of that level' },
  }) },
  { field: 'generationConfig.thinkingConfig.includeThoughts', handling: perProtocol({
    openai: { kind: 'hint', note: 'reasoning text is returned as thought parts where the provider sends it' },
    anthropic: { kind: 'translated', note: 'thinking.display (false → omitted)' },
    gemini: { kind: 'native' },
    bedrock: { kind: 'hint', note: 'reasoning text is returned as thought parts where the model sends it' },
  }) },
];
