import { onEveryProtocol, perProtocol, preferenceNotes, type FieldTable } from '../shared/field-table.js';

const { unreasoned, unsearched, unserved } = preferenceNotes;

/** Anthropic-only fields that change nothing a client relies on: forwarded there, ignored elsewhere. */
const anthropicHint = (note: string, anthropicNote?: string) =>
  perProtocol({ openai: { kind: 'hint', note }, anthropic: anthropicNote === undefined ? { kind: 'native' } : { kind: 'native', note: anthropicNote }, gemini: { kind: 'hint', note }, bedrock: { kind: 'hint', note } });
/** Anthropic-only features elsewhere impossible: forwarded there, refused elsewhere with why. */
const anthropicOnly = (why: string) => perProtocol({ openai: { kind: 'refused', note: why }, anthropic: { kind: 'native' }, gemini: { kind: 'refused', note: why }, bedrock: { kind: 'refused', note: why } });
/**
 * A web search domain filter restricts what is searched, so a search of every site is no
 * substitute: only Anthropic's search takes one (routing prefers an anthropic-wire endpoint;
 * see `webSearchDomainFilter`); elsewhere the offered search is left out, and said.
 */
const domainFilter = perProtocol({
  openai: { kind: 'hint', note: 'web search: web_search_options has no domain filter, so the search is left out rather than run on every site, named in x-switchyard-omitted; endpoints whose search honours it go first (an empty list restricts nothing)' },
  anthropic: { kind: 'native', note: 'also when translated; not together with the other filter' },
  gemini: { kind: 'hint', note: 'web search: googleSearch has no domain filter in the Gemini API, so the search is left out rather than run on every site, named in x-switchyard-omitted; endpoints whose search honours it go first (an empty list restricts nothing)' },
  bedrock: { kind: 'hint', note: 'web search: Converse runs no search, so none is filtered; named in x-switchyard-omitted' },
});

/**
 * Every top-level field of `@anthropic-ai/sdk`'s `MessageCreateParamsBase` and of the beta
 * `MessageCreateParamsBase`, plus the sampling fields older SDKs send and OpenRouter's routing
 * fields, with the handling per provider protocol. The decoder refuses any field without a row;
 * `test/fields/messages-field-table.test.ts` holds the table against the SDK, top-level fields and
 * the fields of every object the table has dotted rows for.
 */
export const messagesFieldTable: FieldTable = [
  { field: 'model', handling: onEveryProtocol('translated', 'catalog model id, replaced by the endpoint’s model name') },
  { field: 'models', handling: onEveryProtocol('emulated', 'fallback models tried in order (OpenRouter)') },
  { field: 'provider', handling: onEveryProtocol('emulated', 'endpoint preferences (OpenRouter)') },
  { field: 'messages', handling: onEveryProtocol('translated', 'text, image, tool_use/tool_result, thinking blocks; role "system" entries join the system prompt') },
  { field: 'system', handling: perProtocol({ openai: { kind: 'translated', note: 'system message' }, anthropic: { kind: 'native' }, gemini: { kind: 'translated', note: 'systemInstruction' }, bedrock: { kind: 'translated', note: 'system blocks' } }) },
  { field: 'max_tokens', handling: perProtocol({ openai: { kind: 'translated', note: 'max_completion_tokens' }, anthropic: { kind: 'native' }, gemini: { kind: 'translated', note: 'maxOutputTokens' }, bedrock: { kind: 'translated', note: 'inferenceConfig.maxTokens' } }) },
  { field: 'stream', handling: onEveryProtocol('translated', 'Anthropic’s event stream, whatever the provider streams') },
  { field: 'stop_sequences', handling: perProtocol({ openai: { kind: 'translated', note: 'stop' }, anthropic: { kind: 'native' }, gemini: { kind: 'translated', note: 'stopSequences' }, bedrock: { kind: 'translated', note: 'inferenceConfig.stopSequences' } }) },
  { field: 'temperature', handling: onEveryProtocol('native') },
  { field: 'top_p', handling: perProtocol({ openai: { kind: 'native' }, anthropic: { kind: 'native', note: 'with temperature also set on a Claude family that refuses both (Opus 4.1, 4.5 and later): left out and named in x-switchyard-omitted' }, gemini: { kind: 'translated', note: 'topP' }, bedrock: { kind: 'translated', note: 'inferenceConfig.topP; with temperature also set on a Claude family that refuses both (Opus 4.1, 4.5 and later): left out and named in x-switchyard-omitted' } }) },
  { field: 'top_k', handling: perProtocol({ openai: { kind: 'native', note: 'OpenAI itself refuses it' }, anthropic: { kind: 'native' }, gemini: { kind: 'translated', note: 'topK' }, bedrock: { kind: 'translated', note: 'additionalModelRequestFields top_k (Claude, Mistral) or inferenceConfig.topK (Nova); other models refused' } }) },
  { field: 'tools', handling: perProtocol({
    openai: { kind: 'translated', note: `function tools; web_search_* → web_search_options (${unsearched}); bash, text editor, computer, memory refused` },
    anthropic: { kind: 'native', note: `custom tools and web_search_* (${unsearched}); bash, text editor, computer, memory refused. Passes of another model in an answer (advisor tool: usage.iterations advisor_message) are charged at that model’s catalog price for this provider, else at the executor’s` },
    gemini: { kind: 'translated', note: `functionDeclarations; web_search_* → googleSearch (${unsearched}); bash, text editor, computer, memory refused` },
    bedrock: { kind: 'translated', note: `toolSpec tools; web_search_* (${unsearched}); bash, text editor, computer, memory refused` },
  }) },
  { field: 'tools[].type=web_fetch_*', handling: onEveryProtocol('hint', unserved) },
  { field: 'tools[].type=code_execution_*', handling: onEveryProtocol('hint', unserved) },
  { field: 'tools[].cache_control', handling: perProtocol({ openai: { kind: 'hint', note: 'OpenAI caches prefixes itself' }, anthropic: { kind: 'translated', note: 'request-level cache_control (cache up to the last block)' }, gemini: { kind: 'hint', note: 'Gemini caches prefixes itself' }, bedrock: { kind: 'hint', note: 'no cachePoint is placed among the tools' } }) },
  { field: 'tools[].defer_loading', handling: onEveryProtocol('hint', 'every tool is loaded; deferring only saves context') },
  { field: 'tools[].eager_input_streaming', handling: onEveryProtocol('hint', 'tool input streams as the provider sends it') },
  { field: 'tools[].strict', handling: perProtocol({
    openai: { kind: 'native', note: 'function.strict (custom tools; refused on web search tools)' },
    anthropic: { kind: 'native', note: 'custom tools; refused on web search tools' },
    gemini: { kind: 'hint', note: 'Gemini has no strict switch (custom tools; refused on web search tools)' },
    bedrock: { kind: 'native', note: 'toolSpec.strict (custom tools; refused on web search tools)' },
  }) },
  { field: 'tools[].allowed_callers', handling: onEveryProtocol('refused', 'tool calls from code execution happen only inside Anthropic’s API; leave it out for calls by the model') },
  { field: 'tools[].input_examples', handling: onEveryProtocol('refused', 'not accepted by the gateway; put examples in the tool’s description') },
  { field: 'tools[].max_uses', handling: perProtocol({
    openai: { kind: 'hint', note: 'web search: searches are not capped' },
    anthropic: { kind: 'hint', note: 'web search: forwarded when the request is relayed as sent; not capped when translated' },
    gemini: { kind: 'hint', note: 'web search: searches are not capped' },
    bedrock: { kind: 'hint', note: 'web search: Converse runs none' },
  }) },
  { field: 'tools[].allowed_domains', handling: domainFilter },
  { field: 'tools[].blocked_domains', handling: domainFilter },
  { field: 'tools[].user_location', handling: perProtocol({
    openai: { kind: 'translated', note: 'web_search_options.user_location' },
    anthropic: { kind: 'native' },
    gemini: { kind: 'hint', note: 'not forwarded (googleSearch takes no location)' },
    bedrock: { kind: 'hint', note: 'web search: Converse runs none' },
  }) },
  { field: 'tools[].response_inclusion', handling: onEveryProtocol('refused', 'web search results consumed by code execution exist only inside Anthropic’s API') },
  { field: 'tool_choice', handling: perProtocol({ openai: { kind: 'translated', note: 'auto/required/function/none' }, anthropic: { kind: 'native' }, gemini: { kind: 'translated', note: 'functionCallingConfig' }, bedrock: { kind: 'translated', note: 'auto → auto, any → any, tool → tool; none: tools left out (sent when the conversation holds tool calls, as Converse requires)' } }) },
  { field: 'tool_choice.disable_parallel_tool_use', handling: perProtocol({ openai: { kind: 'translated', note: 'parallel_tool_calls: false' }, anthropic: { kind: 'native' }, gemini: { kind: 'hint', note: 'Gemini decides itself how many calls to make' }, bedrock: { kind: 'hint', note: 'Converse has no switch; the model decides' } }) },
  { field: 'tool_choice.name', handling: perProtocol({
    openai: { kind: 'translated', note: 'tool_choice function name; a server tool’s name (forcing it) refused' },
    anthropic: { kind: 'native', note: 'a server tool’s name (forcing it) refused' },
    gemini: { kind: 'translated', note: 'allowedFunctionNames; a server tool’s name (forcing it) refused' },
    bedrock: { kind: 'translated', note: 'toolChoice.tool.name; a server tool’s name (forcing it) refused' },
  }) },
  { field: 'thinking', handling: perProtocol({
    openai: { kind: 'translated', note: `reasoning_effort (budget ≤ 2048 low, ≤ 8192 medium, else high; adaptive: the model’s default); ${unreasoned}` },
    anthropic: { kind: 'native', note: unreasoned },
    gemini: { kind: 'translated', note: `thinkingConfig (budget → thinkingBudget; adaptive → dynamic); ${unreasoned}` },
    bedrock: { kind: 'translated', note: `additionalModelRequestFields: Claude thinking (as sent: budget or adaptive), Nova reasoningConfig and gpt-oss reasoning_effort (budget ≤ 2048 low, ≤ 8192 medium, else high); ${unreasoned}` },
  }) },
  { field: 'thinking.budget_tokens', handling: perProtocol({
    openai: { kind: 'translated', note: 'reasoning_effort (≤ 2048 low, ≤ 8192 medium, else high)' },
    anthropic: { kind: 'native' },
    gemini: { kind: 'translated', note: 'thinkingConfig.thinkingBudget' },
    bedrock: { kind: 'translated', note: 'Claude: thinking.budget_tokens; Nova, gpt-oss: an effort' },
  }) },
  { field: 'thinking.type=between_tools', handling: perProtocol({
    openai: { kind: 'translated', note: 'thinking off, as for disabled (as Anthropic’s SDK sends it to a fallback model that lacks it); no progress notes between tool calls' },
    anthropic: { kind: 'native', note: 'also when translated' },
    gemini: { kind: 'translated', note: 'thinking off, as for disabled (as Anthropic’s SDK sends it to a fallback model that lacks it); no progress notes between tool calls' },
    bedrock: { kind: 'translated', note: 'thinking off, as for disabled; no progress notes between tool calls' },
  }) },
  { field: 'thinking.block_binding', handling: anthropicHint('no Claude thinking block is sent to another protocol, so there is no block to check', 'also when translated') },
  { field: 'thinking.display', handling: perProtocol({
    openai: { kind: 'hint', note: 'OpenAI returns no thinking text' },
    anthropic: { kind: 'native', note: 'summarized, omitted, updates; also when translated' },
    gemini: { kind: 'translated', note: '"omitted" → includeThoughts: false; "summarized", "updates" → Gemini’s thought summaries' },
    bedrock: { kind: 'hint', note: 'Converse returns the reasoning text the model sends' },
  }) },
  { field: 'output_config', handling: perProtocol({ openai: { kind: 'translated' }, anthropic: { kind: 'native' }, gemini: { kind: 'translated' }, bedrock: { kind: 'translated' } }) },
  { field: 'output_config.effort', handling: perProtocol({
    openai: { kind: 'translated', note: `reasoning_effort (xhigh, max → high); beside thinking disabled or between_tools a hint, not sent: it asks for no reasoning; ${unreasoned}` },
    anthropic: { kind: 'native', note: 'also when translated, as output_config.effort and never as a thinking budget (thinking disabled stays disabled)' },
    gemini: { kind: 'translated', note: `thinkingConfig.thinkingBudget; beside thinking disabled or between_tools a hint, not sent: it asks for no thinking; ${unreasoned}` },
    bedrock: { kind: 'translated', note: `Claude: a thinking budget of that effort; Nova reasoningConfig, gpt-oss reasoning_effort (xhigh, max → high); beside thinking disabled or between_tools a hint, not sent; ${unreasoned}` },
  }) },
  { field: 'output_config.format', handling: perProtocol({ openai: { kind: 'translated', note: 'response_format json_schema' }, anthropic: { kind: 'native' }, gemini: { kind: 'translated', note: 'responseJsonSchema' }, bedrock: { kind: 'translated', note: 'outputConfig.textFormat json_schema' } }) },
  { field: 'output_config.task_budget', handling: anthropicHint('an advisory budget Claude paces a whole agentic loop by (Anthropic’s task budgets beta), not a cap; not forwarded', 'also when translated') },
  { field: 'output_format', handling: perProtocol({ openai: { kind: 'translated', note: 'response_format json_schema' }, anthropic: { kind: 'translated', note: 'output_config.format' }, gemini: { kind: 'translated', note: 'responseJsonSchema' }, bedrock: { kind: 'translated', note: 'outputConfig.textFormat json_schema' } }) },
  { field: 'metadata', handling: perProtocol({ openai: { kind: 'translated', note: 'user_id → user' }, anthropic: { kind: 'native' }, gemini: { kind: 'hint', note: 'Gemini has no end-user field; user_id recorded as the log’s end_user' }, bedrock: { kind: 'hint', note: 'Converse has no end-user field; user_id recorded as the log’s end_user' } }) },
  { field: 'cache_control', handling: perProtocol({ openai: { kind: 'hint', note: 'OpenAI caches prefixes itself' }, anthropic: { kind: 'native' }, gemini: { kind: 'hint', note: 'Gemini caches prefixes itself' }, bedrock: { kind: 'hint', note: 'not forwarded: a cachePoint goes where a block’s cache_control marks one' } }) },
  { field: 'messages[].content[].cache_control', handling: perProtocol({ openai: { kind: 'hint', note: 'OpenAI caches prefixes itself' }, anthropic: { kind: 'translated', note: 'request-level cache_control (cache up to the last block)' }, gemini: { kind: 'hint', note: 'Gemini caches prefixes itself' }, bedrock: { kind: 'translated', note: 'a cachePoint block after the text block (system and user text)' } }) },
  { field: 'messages[].content[].citations', handling: onEveryProtocol('refused', 'citations sent back would need the cited documents, which are not accepted; an empty list accepted') },
  { field: 'messages[].content[].caller', handling: onEveryProtocol('hint', 'tool_use: {"type": "direct"} accepted (answers carry it); calls made by server tools refused') },
  { field: 'messages[].content[].toolset_name', handling: onEveryProtocol('refused', 'tool calls of toolsets (browser, computer, MCP) run only inside Anthropic’s API') },
  { field: 'messages[].content[].transformations', handling: onEveryProtocol('refused', 'not accepted by the gateway (server-side image transformations of Anthropic’s API)') },
  { field: 'system[].cache_control', handling: perProtocol({ openai: { kind: 'hint', note: 'OpenAI caches prefixes itself' }, anthropic: { kind: 'translated', note: 'request-level cache_control (cache up to the last block)' }, gemini: { kind: 'hint', note: 'Gemini caches prefixes itself' }, bedrock: { kind: 'translated', note: 'a cachePoint block after the system text' } }) },
  { field: 'system[].citations', handling: onEveryProtocol('refused', 'citations sent back would need the cited documents, which are not accepted; an empty list accepted') },
  { field: 'context_management', handling: perProtocol({
    openai: { kind: 'hint', note: 'the conversation is sent whole; nothing is cleared (no thinking crosses protocols, so clearing would change no answer)' },
    anthropic: { kind: 'native' },
    gemini: { kind: 'hint', note: 'the conversation is sent whole; nothing is cleared (no thinking crosses protocols, so clearing would change no answer)' },
    bedrock: { kind: 'hint', note: 'the conversation is sent whole; nothing is cleared' },
  }) },
  { field: 'betas', handling: anthropicHint('beta features of Anthropic’s API (sent as the anthropic-beta header)') },
  { field: 'service_tier', handling: onEveryProtocol('hint', '"auto" and "standard_only" both accepted; the gateway promises no tier') },
  { field: 'speed', handling: anthropicHint('answered at the provider’s normal speed') },
  { field: 'inference_geo', handling: anthropicHint('the provider serves from where it does') },
  { field: 'diagnostics', handling: anthropicHint('no diagnostics are returned') },
  { field: 'fallbacks', handling: anthropicHint('server-side policy fallbacks; use `models` for gateway fallbacks') },
  { field: 'fallback_credit_token', handling: anthropicHint('cache-credit of a refused request') },
  { field: 'container', handling: anthropicOnly('containers (code execution) exist only on Anthropic’s API; use an Anthropic model') },
  { field: 'mcp_servers', handling: anthropicOnly('the MCP connector runs inside Anthropic’s API; use an Anthropic model, or call the MCP tools as client tools') },
  { field: 'compaction', handling: anthropicOnly('a compaction request is answered by Anthropic’s summarizer; use an Anthropic model') },
  { field: 'billing_policy', handling: onEveryProtocol('refused', 'the gateway bills the account of the API key; {"bill_to": "self"} accepted') },
  { field: 'thread', handling: onEveryProtocol('refused', 'stored threads are not kept by the gateway; send the conversation in messages') },
  { field: 'user_profile_id', handling: onEveryProtocol('refused', 'names a profile of the caller’s own Anthropic organization, which the gateway does not use') },
  { field: 'workspace_id', handling: onEveryProtocol('refused', 'names a workspace of the caller’s own Anthropic organization, which the gateway does not use') },
];
