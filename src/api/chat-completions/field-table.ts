import { jsonModeOnAnthropic, onEveryProtocol, perProtocol, preferenceNotes, type FieldTable } from '../shared/field-table.js';

const { unreasoned, unsearched } = preferenceNotes;

const penalty = (name: string) =>
  perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'refused', note: 'Anthropic has no penalties; 0 accepted' }, gemini: { kind: 'translated', note: name }, bedrock: { kind: 'refused', note: 'Converse has no penalties; 0 accepted' } });

/**
 * Every top-level field of the `openai` SDK's `ChatCompletionCreateParamsBase`, plus OpenRouter's
 * extensions (`models`, `provider`, `top_k`, `reasoning`, `usage`), with its handling per provider
 * protocol. The decoder refuses any field without a row; `test/fields/openai-field-tables.test.ts`
 * holds the table against the SDK, top-level fields and the fields of every object the table has
 * dotted rows for.
 */
export const chatCompletionsFieldTable: FieldTable = [
  { field: 'model', handling: onEveryProtocol('translated', 'catalog model id, replaced by the endpoint’s model name') },
  { field: 'models', handling: onEveryProtocol('emulated', 'fallback models tried in order (OpenRouter)') },
  { field: 'provider', handling: onEveryProtocol('emulated', 'endpoint preferences (OpenRouter)') },
  { field: 'messages', handling: onEveryProtocol('translated', 'system/developer → system prompt; tool results keyed by call') },
  { field: 'messages[].name', handling: onEveryProtocol('hint', 'participant names are not forwarded') },
  { field: 'messages[].cache_control', handling: perProtocol({ openai: { kind: 'hint', note: 'OpenAI caches prefixes itself' }, anthropic: { kind: 'translated', note: 'a breakpoint after the message’s last system or user text part' }, gemini: { kind: 'hint', note: 'Gemini caches prefixes itself' }, bedrock: { kind: 'translated', note: 'a cachePoint block after the message’s last system or user text part' } }) },
  { field: 'messages[].refusal', handling: onEveryProtocol('translated', 'an assistant message’s refusal is sent back as its text') },
  { field: 'messages[].audio', handling: onEveryProtocol('refused', 'audio output is not supported, so no earlier audio reply can be sent back') },
  { field: 'messages[].function_call', handling: onEveryProtocol('refused', 'legacy function calling; use tool_calls') },
  { field: 'messages[].content[].cache_control', handling: perProtocol({
    openai: { kind: 'hint', note: 'OpenAI caches prefixes itself' },
    anthropic: { kind: 'translated', note: 'cache_control on system and user text blocks; on assistant and image parts accepted, not forwarded' },
    gemini: { kind: 'hint', note: 'Gemini caches implicitly' },
    bedrock: { kind: 'translated', note: 'a cachePoint block after system and user text blocks; on assistant and image parts accepted, not forwarded' },
  }) },
  { field: 'messages[].content[].prompt_cache_breakpoint', handling: perProtocol({
    openai: { kind: 'hint', note: 'OpenAI’s breakpoint ({"mode": "explicit"}): forwarded when the request is relayed as sent, not when translated' },
    anthropic: { kind: 'hint', note: 'not forwarded; cache_control marks an Anthropic breakpoint' },
    gemini: { kind: 'hint', note: 'Gemini caches implicitly' },
    bedrock: { kind: 'hint', note: 'not forwarded; cache_control marks a Bedrock cachePoint' },
  }) },
  { field: 'stream', handling: onEveryProtocol('translated') },
  { field: 'stream_options', handling: onEveryProtocol('hint', 'usage is always sent; no obfuscation padding') },
  { field: 'usage', handling: onEveryProtocol('hint', 'usage is always returned (OpenRouter)') },
  { field: 'max_tokens', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'translated', note: 'max_tokens' }, gemini: { kind: 'translated', note: 'maxOutputTokens' }, bedrock: { kind: 'translated', note: 'inferenceConfig.maxTokens' } }) },
  { field: 'max_completion_tokens', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'translated', note: 'max_tokens' }, gemini: { kind: 'translated', note: 'maxOutputTokens' }, bedrock: { kind: 'translated', note: 'inferenceConfig.maxTokens' } }) },
  { field: 'temperature', handling: onEveryProtocol('native') },
  { field: 'top_p', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'native', note: 'with temperature also set on a Claude family that refuses both (Opus 4.1, 4.5 and later): left out and named in x-switchyard-omitted' }, gemini: { kind: 'translated', note: 'topP' }, bedrock: { kind: 'translated', note: 'inferenceConfig.topP; with temperature also set on a Claude family that refuses both (Opus 4.1, 4.5 and later): left out and named in x-switchyard-omitted' } }) },
  { field: 'top_k', handling: perProtocol({ openai: { kind: 'native', note: 'OpenAI itself refuses it' }, anthropic: { kind: 'native' }, gemini: { kind: 'translated', note: 'topK' }, bedrock: { kind: 'translated', note: 'additionalModelRequestFields: top_k (Claude, Mistral), inferenceConfig.topK (Nova); other models refused' } }) },
  { field: 'frequency_penalty', handling: penalty('frequencyPenalty') },
  { field: 'presence_penalty', handling: penalty('presencePenalty') },
  { field: 'seed', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'refused', note: 'Anthropic has no seed' }, gemini: { kind: 'native' }, bedrock: { kind: 'refused', note: 'Converse has no seed' } }) },
  { field: 'stop', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'translated', note: 'stop_sequences' }, gemini: { kind: 'translated', note: 'stopSequences' }, bedrock: { kind: 'translated', note: 'inferenceConfig.stopSequences' } }) },
  { field: 'tools', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'translated', note: 'input_schema tools' }, gemini: { kind: 'translated', note: 'functionDeclarations' }, bedrock: { kind: 'translated', note: 'toolConfig.tools (toolSpec with inputSchema.json)' } }) },
  { field: 'tool_choice', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'translated', note: 'auto/any/tool/none' }, gemini: { kind: 'translated', note: 'functionCallingConfig' }, bedrock: { kind: 'translated', note: 'auto → auto, required → any, function → tool; none: the tools are left out (sent, the model choosing, when the conversation holds tool calls, as Converse requires)' } }) },
  { field: 'parallel_tool_calls', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'translated', note: 'false → disable_parallel_tool_use' }, gemini: { kind: 'hint', note: 'Gemini decides itself' }, bedrock: { kind: 'hint', note: 'Converse has no switch; the model decides' } }) },
  { field: 'response_format', handling: perProtocol({
    openai: { kind: 'native' },
    anthropic: { kind: 'emulated', note: `json_object: ${jsonModeOnAnthropic}; json_schema → output_config.format; text: nothing sent` },
    gemini: { kind: 'translated', note: 'json_object → responseMimeType application/json; json_schema → responseMimeType + responseJsonSchema' },
    bedrock: { kind: 'translated', note: 'json_schema → outputConfig.textFormat; json_object refused (Converse has no JSON mode without a schema); text: nothing sent' },
  }) },
  { field: 'reasoning_effort', handling: perProtocol({
    openai: { kind: 'native', note: `'none' asks for nothing (not forwarded); ${unreasoned}` },
    anthropic: { kind: 'translated', note: `thinking budget_tokens; ${unreasoned}` },
    gemini: { kind: 'translated', note: `thinkingConfig.thinkingBudget; ${unreasoned}` },
    bedrock: { kind: 'translated', note: `additionalModelRequestFields: Claude thinking budget_tokens, Nova reasoningConfig, gpt-oss reasoning_effort; other models reason as they do; ${unreasoned}` },
  }) },
  { field: 'reasoning', handling: perProtocol({
    openai: { kind: 'translated', note: `reasoning_effort; max_tokens refused; enabled: true = medium, false = none; exclude: true refused; ${unreasoned}` },
    anthropic: { kind: 'translated', note: `thinking budget_tokens; ${unreasoned}` },
    gemini: { kind: 'translated', note: `thinkingConfig.thinkingBudget; ${unreasoned}` },
    bedrock: { kind: 'translated', note: `additionalModelRequestFields: Claude thinking budget_tokens, Nova reasoningConfig, gpt-oss reasoning_effort; other models reason as they do; ${unreasoned}` },
  }) },
  { field: 'verbosity', handling: onEveryProtocol('hint', 'OpenAI’s own models read it, others answer as they would') },
  { field: 'web_search_options', handling: perProtocol({
    openai: { kind: 'native', note: unsearched },
    anthropic: { kind: 'translated', note: `server tool web_search_20250305; ${unsearched}` },
    gemini: { kind: 'translated', note: `googleSearch grounding; ${unsearched}` },
    bedrock: { kind: 'hint', note: `Converse runs no web search; ${unsearched}` },
  }) },
  { field: 'plugins', handling: onEveryProtocol('translated', `OpenRouter's [{id: "web"}] (and the model suffix :online): a web search, as web_search_options; other plugins refused`) },
  { field: 'user', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'translated', note: 'metadata.user_id' }, gemini: { kind: 'hint', note: 'no Gemini field; recorded as the log’s end_user' }, bedrock: { kind: 'hint', note: 'no Converse field; recorded as the log’s end_user' } }) },
  { field: 'metadata', handling: onEveryProtocol('hint', 'not forwarded') },
  { field: 'safety_identifier', handling: onEveryProtocol('hint', 'recorded as the log’s end_user (over user); not forwarded') },
  { field: 'store', handling: onEveryProtocol('hint', 'false accepted; true refused: no completions are stored') },
  { field: 'prompt_cache_key', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'hint', note: 'sticky routing to the endpoint that served the key' }, gemini: { kind: 'hint', note: 'sticky routing to the endpoint that served the key' }, bedrock: { kind: 'hint', note: 'sticky routing to the endpoint that served the key' } }) },
  { field: 'prompt_cache_retention', handling: onEveryProtocol('hint') },
  { field: 'prompt_cache_options', handling: onEveryProtocol('hint') },
  { field: 'service_tier', handling: onEveryProtocol('hint', 'auto/default accepted; flex, scale, priority refused: the gateway cannot promise a tier') },
  { field: 'n', handling: onEveryProtocol('refused', 'one choice per request; 1 accepted') },
  { field: 'logprobs', handling: onEveryProtocol('refused', 'logprobs are not returned; false accepted') },
  { field: 'top_logprobs', handling: onEveryProtocol('refused', 'logprobs are not returned; 0 accepted') },
  { field: 'logit_bias', handling: onEveryProtocol('refused', 'token ids differ per provider; an empty object accepted') },
  { field: 'modalities', handling: onEveryProtocol('refused', 'text output only; ["text"] accepted') },
  { field: 'audio', handling: onEveryProtocol('refused', 'audio output is not supported; use /audio/speech') },
  { field: 'prediction', handling: onEveryProtocol('refused', 'predicted outputs are not supported') },
  { field: 'moderation', handling: onEveryProtocol('refused', 'OpenAI-hosted moderation is not run by this gateway') },
  { field: 'functions', handling: onEveryProtocol('refused', 'legacy function calling; use tools') },
  { field: 'function_call', handling: onEveryProtocol('refused', 'legacy function calling; use tool_choice') },
];
