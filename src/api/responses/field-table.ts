import { jsonModeOnAnthropic, onEveryProtocol, perProtocol, preferenceNotes, type Disposition, type FieldTable } from '../shared/field-table.js';

const { unreasoned, unsearched, unserved } = preferenceNotes;


/**
 * Every top-level field of the `openai` SDK's `ResponseCreateParamsBase`, plus the OpenRouter
 * routing fields and Codex's `client_metadata`, with its handling per provider protocol. The
 * decoder refuses any field without a row; `test/fields/openai-field-tables.test.ts` holds the
 * table against the SDK, top-level fields and the fields of every object the table has dotted rows for.
 */
export const responsesFieldTable: FieldTable = [
  { field: 'model', handling: onEveryProtocol('translated', 'catalog model id, replaced by the endpoint’s model name') },
  { field: 'models', handling: onEveryProtocol('emulated', 'fallback models tried in order (OpenRouter)') },
  { field: 'provider', handling: onEveryProtocol('emulated', 'endpoint preferences (OpenRouter)') },
  { field: 'input', handling: onEveryProtocol('translated', 'items become messages; developer/system items become the system prompt') },
  { field: 'instructions', handling: onEveryProtocol('translated', 'first system message') },
  { field: 'stream', handling: onEveryProtocol('translated') },
  { field: 'stream_options', handling: onEveryProtocol('hint', 'include_obfuscation: no padding is added') },
  { field: 'max_output_tokens', handling: perProtocol({ openai: { kind: 'translated', note: 'max_completion_tokens' }, anthropic: { kind: 'translated', note: 'max_tokens' }, gemini: { kind: 'translated', note: 'maxOutputTokens' }, bedrock: { kind: 'translated', note: 'inferenceConfig.maxTokens' } }) },
  { field: 'temperature', handling: onEveryProtocol('native', 'absent: nothing forwarded, the Response echoes the neutral default 1') },
  { field: 'top_p', handling: perProtocol({
    openai: { kind: 'native', note: 'absent: nothing forwarded, echoed as 1' },
    anthropic: { kind: 'native', note: 'absent: nothing forwarded, echoed as 1; with temperature also set on a Claude family that refuses both (Opus 4.1, 4.5 and later): left out and named in x-switchyard-omitted' },
    gemini: { kind: 'translated', note: 'topP; absent: nothing forwarded, echoed as 1' },
    bedrock: { kind: 'translated', note: 'inferenceConfig.topP; absent: nothing forwarded, echoed as 1; with temperature also set on a Claude family that refuses both (Opus 4.1, 4.5 and later): left out and named in x-switchyard-omitted' },
  }) },
  { field: 'tools', handling: perProtocol({
    openai: { kind: 'translated', note: 'function; namespace flattened to functions; web_search → web_search_options; computer_use, shell, apply_patch, custom refused' },
    anthropic: { kind: 'translated', note: 'function; namespace flattened; web_search → server tool web_search_20250305; computer_use, shell, apply_patch, custom refused' },
    gemini: { kind: 'translated', note: 'functionDeclarations; namespace flattened; web_search → googleSearch grounding; computer_use, shell, apply_patch, custom refused' },
    bedrock: { kind: 'translated', note: 'function → toolSpec; namespace flattened; web_search: Converse runs none (a preference); computer_use, shell, apply_patch, custom refused' },
  }) },
  { field: 'tools[].type=namespace', handling: onEveryProtocol('emulated', 'each function becomes `namespace__name`; calls come back as name + namespace') },
  { field: 'tools[].type=tool_search', handling: onEveryProtocol('emulated', 'deferred tools (defer_loading) are offered directly; nothing to search, not forwarded; client execution refused') },
  { field: 'tools[].type=web_search', handling: onEveryProtocol('translated', `the provider’s search tool; ${unsearched}; forced by tool_choice: refused`) },
  { field: 'tools[].type=image_generation', handling: onEveryProtocol('hint', unserved) },
  { field: 'tools[].type=code_interpreter', handling: onEveryProtocol('hint', unserved) },
  { field: 'tools[].type=file_search', handling: onEveryProtocol('hint', unserved) },
  { field: 'tools[].type=mcp', handling: onEveryProtocol('hint', unserved) },
  { field: 'tools[].strict', handling: perProtocol({ openai: { kind: 'native', note: 'function.strict' }, anthropic: { kind: 'native' }, gemini: { kind: 'hint', note: 'Gemini has no strict switch' }, bedrock: { kind: 'native', note: 'toolSpec.strict' } }) },
  { field: 'tools[].defer_loading', handling: onEveryProtocol('hint', 'every tool is offered directly; deferring only saves context') },
  { field: 'tools[].allowed_callers', handling: onEveryProtocol('hint', 'OpenAI’s programmatic tool calling: not forwarded, the model calls the tools itself') },
  { field: 'tools[].output_schema', handling: onEveryProtocol('hint', 'for OpenAI’s programmatic tool calling: not forwarded') },
  { field: 'tools[].filters', handling: perProtocol({
    openai: { kind: 'hint', note: 'web search: Chat Completions’ web_search_options has no domain filter, so the search is left out rather than run on every site, named in x-switchyard-omitted; endpoints whose search honours allowed_domains go first (an empty list restricts nothing)' },
    anthropic: { kind: 'translated', note: 'web search: allowed_domains' },
    gemini: { kind: 'hint', note: 'web search: googleSearch has no domain filter in the Gemini API, so the search is left out rather than run on every site, named in x-switchyard-omitted; endpoints whose search honours allowed_domains go first (an empty list restricts nothing)' },
    bedrock: { kind: 'hint', note: 'web search: Converse runs no search, so none is filtered; named in x-switchyard-omitted' },
  }) },
  { field: 'tools[].search_context_size', handling: perProtocol({
    openai: { kind: 'translated', note: 'web_search_options.search_context_size' },
    anthropic: { kind: 'hint', note: 'Anthropic’s search has no context size' },
    gemini: { kind: 'hint', note: 'googleSearch has no context size' },
    bedrock: { kind: 'hint', note: 'Converse runs no search' },
  }) },
  { field: 'tools[].user_location', handling: perProtocol({
    openai: { kind: 'translated', note: 'web_search_options.user_location' },
    anthropic: { kind: 'translated', note: 'web search tool user_location' },
    gemini: { kind: 'hint', note: 'not forwarded (googleSearch takes no location)' },
    bedrock: { kind: 'hint', note: 'Converse runs no search' },
  }) },
  { field: 'tools[].search_content_types', handling: onEveryProtocol('refused', 'web_search_preview: not accepted by the gateway; search results are text') },
  { field: 'tools[].execution', handling: onEveryProtocol('emulated', "tool_search: 'server' accepted (nothing to search); 'client' refused") },
  { field: 'tool_choice', handling: perProtocol({
    openai: { kind: 'native', note: 'a hosted tool type (forcing it) refused' },
    anthropic: { kind: 'translated', note: 'tool_choice auto/any/tool/none; a hosted tool type (forcing it) refused' },
    gemini: { kind: 'translated', note: 'functionCallingConfig; a hosted tool type (forcing it) refused' },
    bedrock: { kind: 'translated', note: 'toolChoice auto/any/tool (none: tools left out); a hosted tool type (forcing it) refused' },
  }) },
  { field: 'parallel_tool_calls', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'translated', note: 'false → disable_parallel_tool_use' }, gemini: { kind: 'hint', note: 'Gemini decides itself' }, bedrock: { kind: 'hint', note: 'Converse has no switch; the model decides' } }) },
  { field: 'text', handling: onEveryProtocol('translated', 'see text.format and text.verbosity') },
  { field: 'text.format', handling: perProtocol({
    openai: { kind: 'translated', note: 'response_format (text, json_object, json_schema)' },
    anthropic: { kind: 'emulated', note: `json_object: ${jsonModeOnAnthropic}; json_schema → output_config.format; text: nothing sent` },
    gemini: { kind: 'translated', note: 'json_object → responseMimeType application/json; json_schema → responseMimeType + responseJsonSchema' },
    bedrock: { kind: 'translated', note: 'json_schema → outputConfig.textFormat; json_object refused (Converse has no JSON mode without a schema); text: nothing sent' },
  }) },
  { field: 'text.verbosity', handling: perProtocol({ openai: { kind: 'native', note: 'verbosity' }, anthropic: { kind: 'hint' }, gemini: { kind: 'hint' }, bedrock: { kind: 'hint' } }) },
  { field: 'reasoning', handling: perProtocol({ openai: { kind: 'translated', note: 'reasoning_effort' }, anthropic: { kind: 'translated', note: 'thinking budget_tokens' }, gemini: { kind: 'translated', note: 'thinkingConfig.thinkingBudget' }, bedrock: { kind: 'translated', note: 'additionalModelRequestFields: Claude thinking budget_tokens, Nova reasoningConfig, gpt-oss reasoning_effort' } }) },
  { field: 'reasoning.effort', handling: onEveryProtocol('translated', `minimal/low/medium/high; 'none' asks for nothing (not forwarded); xhigh refused; ${unreasoned}`) },
  { field: 'reasoning.summary', handling: onEveryProtocol('hint', 'reasoning received is always reported as a summary') },
  { field: 'reasoning.generate_summary', handling: onEveryProtocol('hint', 'the deprecated spelling of reasoning.summary') },
  { field: 'reasoning.context', handling: perProtocol({
    openai: { kind: 'hint', note: 'Chat Completions takes no reasoning back, so no earlier reasoning is re-read' },
    anthropic: { kind: 'hint', note: 'thinking blocks in input are sent as they are; Claude decides which earlier ones it keeps in context' },
    gemini: { kind: 'hint', note: 'Gemini re-reads only the thought signatures sent back, and decides itself' },
    bedrock: { kind: 'hint', note: 'signed reasoning blocks in input are sent back as reasoningContent; the model decides what it keeps' },
  }) },
  { field: 'reasoning.mode', handling: perProtocol({
    openai: { kind: 'refused', note: "'standard' accepted; 'pro' runs only in OpenAI’s Responses API, and openai-wire endpoints speak Chat Completions" },
    anthropic: { kind: 'refused', note: "'standard' accepted; Claude has no pro execution mode" },
    gemini: { kind: 'refused', note: "'standard' accepted; Gemini has no pro execution mode" },
    bedrock: { kind: 'refused', note: '\'standard\' accepted; Converse has no pro execution mode' },
  }) },
  { field: 'include', handling: onEveryProtocol('hint', 'reasoning.encrypted_content is always returned; output of hosted tools the gateway does not run has nothing to include; message.output_text.logprobs refused') },
  { field: 'store', handling: onEveryProtocol('emulated', 'default true: the gateway keeps the response (input items, output, effective request) for the retention period, for GET/DELETE /responses/{id}, input_items and previous_response_id; false keeps nothing') },
  { field: 'metadata', handling: onEveryProtocol('hint', 'echoed on the Response') },
  { field: 'client_metadata', handling: onEveryProtocol('hint', 'Codex’s client details; not forwarded') },
  { field: 'user', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'translated', note: 'metadata.user_id' }, gemini: { kind: 'hint', note: 'no Gemini field; recorded as the log’s end_user' }, bedrock: { kind: 'hint', note: 'no Converse field; recorded as the log’s end_user' } }) },
  { field: 'safety_identifier', handling: onEveryProtocol('hint', 'recorded as the log’s end_user (over user); not forwarded') },
  { field: 'prompt_cache_key', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'hint', note: 'sticky routing to the endpoint that served the key' }, gemini: { kind: 'hint', note: 'sticky routing to the endpoint that served the key' }, bedrock: { kind: 'hint', note: 'sticky routing to the endpoint that served the key' } }) },
  { field: 'prompt_cache_retention', handling: onEveryProtocol('hint') },
  { field: 'prompt_cache_options', handling: onEveryProtocol('hint') },
  { field: 'service_tier', handling: onEveryProtocol('hint', 'auto/default accepted; flex, scale, priority refused: the gateway cannot promise a tier') },
  { field: 'truncation', handling: onEveryProtocol('emulated', "'auto': when the estimated input exceeds the smallest context window of the endpoints tried (less max_output_tokens), the oldest turns after the instructions are dropped, whole, until it fits; the last turn always stays; 'disabled' (the default): sent as it is") },
  { field: 'top_logprobs', handling: onEveryProtocol('hint', '0 accepted; more refused: logprobs are not returned') },
  { field: 'moderation', handling: onEveryProtocol('refused', 'OpenAI-hosted moderation is not run by this gateway') },
  { field: 'previous_response_id', handling: onEveryProtocol('emulated', 'the stored response’s input and output items go before input, on any model and protocol (reasoning signatures reach only their own protocol); instructions are not carried over; unknown, deleted, expired or foreign: 404 previous_response_not_found') },
  { field: 'conversation', handling: onEveryProtocol('refused', 'conversation objects are not kept; continue with previous_response_id, or send the earlier items in input') },
  { field: 'prompt', handling: onEveryProtocol('refused', 'stored prompt templates live at OpenAI; send the prompt text in input') },
  { field: 'background', handling: onEveryProtocol('refused', 'true: no background jobs, the answer comes within the request (stream or WebSocket mode); false accepted') },
  { field: 'context_management', handling: onEveryProtocol('refused', 'automatic compaction inside a response is not run; compact with POST /responses/compact; an empty list accepted') },
];
