import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { catchGatewayError } from '../../errors/__fixtures__/catch-gateway-error.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { decodeMessagesRequest } from './decode-request.js';

const base = { model: 'anthropic/claude-sonnet-4', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] };

function decode(extra: Record<string, unknown>) {
  return decodeMessagesRequest({ ...base, ...extra });
}

function refusal(body: Record<string, unknown>): GatewayError {
  return catchGatewayError(() => decodeMessagesRequest(body));
}

const refusalOf = (extra: Record<string, unknown>) => refusal({ ...base, ...extra });

describe('decodeMessagesRequest: basics', () => {
  it('decodes the minimal body; the required max_tokens is not an optional parameter', () => {
    const call = decodeMessagesRequest(base);
    expect(call.route).toEqual({ model: 'anthropic/claude-sonnet-4', fallbackModels: [], provider: undefined });
    expect(call.request).toEqual({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], maxTokens: 1024, stream: false });
    expect(call.parameters).toEqual([]);
  });

  it('routes with models and provider', () => {
    expect(decode({ models: ['openai/gpt-4o'], provider: { sort: 'price' } }).route).toEqual({
      model: 'anthropic/claude-sonnet-4', fallbackModels: ['openai/gpt-4o'], provider: { sort: 'price' },
    });
  });

  it('requires model, max_tokens and messages', () => {
    expect(refusal({ max_tokens: 5, messages: base.messages }).param).toBe('model');
    expect(refusal({ model: 'a/b', messages: base.messages })).toMatchObject({ code: 'invalid_request', status: 400, message: "'max_tokens' is required", param: 'max_tokens' });
    expect(refusalOf({ max_tokens: 0 }).message).toBe("'max_tokens' must be an integer at least 1");
    expect(refusal({ model: 'a/b', max_tokens: 5 }).message).toBe("'messages' is required");
    expect(refusalOf({ messages: [] }).param).toBe('messages');
  });

  it('puts system (string or text blocks) first, accepting cache_control', () => {
    expect(decode({ system: 'Be brief.' }).request.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    const call = decode({
      system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      cache_control: { type: 'ephemeral' },
    });
    expect(call.request.messages.slice(0, 2)).toEqual([{ role: 'system', content: 'A' }, { role: 'system', content: 'B' }]);
    expect(call.parameters).toEqual([]);
    expect(refusalOf({ system: [{ type: 'text', text: 'A', cache_control: { type: 'persistent' } }] }).param).toBe('system[0].cache_control.type');
    expect(refusalOf({ system: [{ type: 'image', source: {} }] }).param).toBe('system[0].type');
    expect(refusalOf({ system: 5 }).message).toBe("'system' must be a string or an array of content blocks");
  });

  it('reads stream', () => {
    expect(decode({ stream: true }).request.stream).toBe(true);
    expect(refusalOf({ stream: 1 }).param).toBe('stream');
  });
});

describe('decodeMessagesRequest: parameters', () => {
  it('maps sampling parameters and stop sequences; metadata.user_id is a hint, not a routing requirement', () => {
    const call = decode({ temperature: 0.3, top_p: 0.8, top_k: 20, stop_sequences: ['\n\nHuman:'], metadata: { user_id: 'u-1' } });
    expect(call.request).toMatchObject({ temperature: 0.3, topP: 0.8, topK: 20, stop: ['\n\nHuman:'], user: 'u-1' });
    expect(call.parameters).toEqual([
      { name: 'stop', field: 'stop_sequences' },
      { name: 'temperature', field: 'temperature' },
      { name: 'top_p', field: 'top_p' },
      { name: 'top_k', field: 'top_k' },
    ]);
    expect(decode({ metadata: {} }).parameters).toEqual([]);
    expect(decode({ metadata: { user_id: null } }).request.user).toBeUndefined();
  });

  it.each([
    ['temperature', 1.5, "'temperature' must be a number between 0 and 1"],
    ['top_p', -0.1, "'top_p' must be a number between 0 and 1"],
    ['top_k', 2.5, "'top_k' must be an integer at least 0"],
    ['stop_sequences', 'END', "'stop_sequences' must be an array of non-empty strings"],
    ['metadata', { user_id: 5 }, "'metadata.user_id' must be a string"],
  ])('refuses %s = %j', (field, value, message) => {
    expect(refusalOf({ [field]: value })).toMatchObject({ code: 'invalid_request', message });
  });

  it('maps thinking to a reasoning budget and output_config to effort and a JSON schema', () => {
    expect(decode({ thinking: { type: 'enabled', budget_tokens: 2048 } })).toMatchObject({
      request: { reasoning: { maxTokens: 2048, effort: 'low' } },
      parameters: [{ name: 'reasoning', field: 'thinking' }],
    });
    expect(decode({ thinking: { type: 'disabled' } }).request.reasoning).toBeUndefined();
    expect(decode({ thinking: { type: 'disabled' } }).parameters).toEqual([]);
    expect(decode({ thinking: { type: 'adaptive' } }).request.reasoning).toEqual({ adaptive: true });
    expect(decode({ thinking: { type: 'adaptive', display: 'omitted' } }).request.reasoning).toEqual({ adaptive: true, display: 'omitted' });
    expect(decode({ thinking: { type: 'enabled', budget_tokens: 10_000, display: 'omitted' } }).request.reasoning).toEqual({ maxTokens: 10_000, effort: 'high', display: 'omitted' });
    // Claude-only effort levels: the highest effort elsewhere, sent as is to Anthropic.
    const max = decode({ thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }).request;
    expect(max.reasoning).toEqual({ adaptive: true, effort: 'high' });
    expect(max.anthropic?.effort).toBe('max');
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    const call = decode({ thinking: { type: 'adaptive' }, output_config: { effort: 'high', format: { type: 'json_schema', schema } } });
    expect(call.request.reasoning).toEqual({ adaptive: true, effort: 'high' });
    expect(call.request.responseFormat).toEqual({ type: 'json_schema', name: 'response', schema });
    // Adaptive thinking and an effort are preferences: only the schema restricts routing.
    expect(call.parameters).toEqual([
      { name: 'reasoning', field: 'thinking', preference: true },
      { name: 'reasoning', field: 'output_config.effort', preference: true },
      { name: 'response_format', field: 'output_config.format' },
    ]);
  });

  it.each([
    [{ thinking: { type: 'enabled' } }, 'thinking.budget_tokens'],
    [{ thinking: { type: 'sometimes' } }, 'thinking.type'],
    [{ thinking: { type: 'enabled', budget_tokens: 2048, display: 'hidden' } }, 'thinking.display'],
    [{ thinking: { type: 'disabled', budget_tokens: 5 } }, 'thinking.budget_tokens'],
    [{ output_config: { effort: 'extreme' } }, 'output_config.effort'],
    [{ output_config: { format: { type: 'json_schema' } } }, 'output_config.format.schema'],
    [{ output_config: { verbosity: 'low' } }, 'output_config.verbosity'],
  ])('refuses bad reasoning options %#', (extra, param) => {
    expect(refusalOf(extra)).toMatchObject({ code: 'invalid_request', param });
  });

  it.each(['frequency_penalty', 'n', 'max_tokenz'])('refuses %s, which the Messages style does not define, naming it', (field) => {
    const error = refusalOf({ [field]: 'x' });
    expect(error).toMatchObject({ code: 'invalid_request', param: field });
    expect(error.message).toBe(`Unsupported parameter: '${field}' is not supported.`);
  });

  it('keeps the Anthropic-only fields for Anthropic, with the betas of the header and a request-level cache breakpoint', () => {
    const context = { edits: [{ type: 'clear_tool_uses_20250919' }] };
    const call = decodeMessagesRequest(
      { ...base, context_management: context, container: 'cntr_1', speed: 'fast', service_tier: 'auto', system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }] },
      { 'anthropic-beta': 'context-management-2025-06-27, interleaved-thinking-2025-05-14' },
    );
    expect(call.request.anthropic).toEqual({
      body: { context_management: context, container: 'cntr_1', speed: 'fast', cache_control: { type: 'ephemeral' } },
      betas: ['context-management-2025-06-27', 'interleaved-thinking-2025-05-14'],
    });
    expect(decode({}).request.anthropic).toBeUndefined();
  });

  it.each([
    [{ workspace_id: 'wrkspc_1' }, 'workspace_id', /caller’s own Anthropic organization/],
    [{ user_profile_id: 'up_1' }, 'user_profile_id', /caller’s own Anthropic organization/],
    [{ thread: { id: 't' } }, 'thread', /no stored threads/],
    [{ billing_policy: { bill_to: 'user_profile' } }, 'billing_policy', /bills the account of the API key/],
    [{ service_tier: 'priority' }, 'service_tier', /must be one of auto, standard_only/],
  ])('refuses a requirement it cannot meet, saying why %#', (extra, param, message) => {
    const error = refusalOf(extra);
    expect(error).toMatchObject({ code: 'invalid_request', param });
    expect(error.message).toMatch(message);
  });
});

describe('decodeMessagesRequest: tools', () => {
  const weather = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };

  it('decodes custom tools and every tool_choice', () => {
    const call = decode({ tools: [weather, { type: 'custom', name: 'now', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' }, strict: true }], tool_choice: { type: 'any', disable_parallel_tool_use: true } });
    expect(call.request.tools).toEqual([
      { name: 'get_weather', description: 'Weather', parameters: weather.input_schema },
      { name: 'now', parameters: { type: 'object' }, strict: true },
    ]);
    expect(call.request).toMatchObject({ toolChoice: 'required', parallelToolCalls: false });
    expect(call.parameters).toEqual([
      { name: 'tools', field: 'tools' },
      { name: 'tool_choice', field: 'tool_choice' },
    ]);
    expect(decode({ tools: [weather], tool_choice: { type: 'auto', disable_parallel_tool_use: false } }).request).toMatchObject({ toolChoice: 'auto', parallelToolCalls: true });
    expect(decode({ tools: [weather], tool_choice: { type: 'none' } }).request.toolChoice).toBe('none');
    expect(decode({ tools: [weather], tool_choice: { type: 'tool', name: 'get_weather' } }).request.toolChoice).toEqual({ type: 'tool', name: 'get_weather' });
  });

  it.each([
    [{ tools: [{ type: 'web_search_20250305', name: 'web_search', allowed_domains: ['a.com'], blocked_domains: ['x.com'] }] }, 'tools[0].blocked_domains'],
    [{ tools: [{ type: 'web_search_20250305', name: 'web_search', blocked_domains: 'x.com' }] }, 'tools[0].blocked_domains'],
    [{ tools: [{ type: 'bash_20250124', name: 'bash' }] }, 'tools[0].type'],
    [{ tools: [{ name: 'x', input_schema: {}, defer_loading: 'yes' }] }, 'tools[0].defer_loading'],
    [{ tools: [{ name: 'x' }] }, 'tools[0].input_schema'],
    [{ tool_choice: { type: 'required' } }, 'tool_choice.type'],
    [{ tool_choice: { type: 'none', disable_parallel_tool_use: true } }, 'tool_choice.disable_parallel_tool_use'],
    [{ tools: [weather], tool_choice: { type: 'tool', name: 'other' } }, 'tool_choice.name'],
    [{ tool_choice: 'auto' }, 'tool_choice'],
  ])('refuses bad tools %#', (extra, param) => {
    expect(refusalOf(extra)).toMatchObject({ code: 'invalid_request', param });
  });
});

describe('decodeMessagesRequest: server tools offered, forced, or the client’s own', () => {
  const search = { type: 'web_search_20250305', name: 'web_search' };
  const weather = { name: 'weather', input_schema: { type: 'object' } };

  it('takes web fetch and code execution, which no provider runs here, as offers the request is served without', () => {
    const call = decode({ tools: [weather, { type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 2 }, { type: 'code_execution_20250825', name: 'code_execution' }] });
    expect(call.offeredTools).toEqual([
      { tool: 'web_fetch_20250910', field: 'tools[type=web_fetch_20250910]' },
      { tool: 'code_execution_20250825', field: 'tools[type=code_execution_20250825]' },
    ]);
    expect(call.request.tools?.map((tool) => tool.name)).toEqual(['weather']);
  });

  it('refuses a tool_choice that forces a server tool, saying the gateway cannot force one', () => {
    for (const tools of [[search], [{ type: 'web_fetch_20250910', name: 'web_fetch' }]]) {
      const error = refusalOf({ tools, tool_choice: { type: 'tool', name: tools[0].name } });
      expect(error).toMatchObject({ code: 'invalid_request', param: 'tool_choice.name' });
      expect(error.message).toContain(`forces the server tool '${tools[0].name}'`);
    }
  });

  it('still refuses the tools Anthropic defines for the client to run', () => {
    expect(refusalOf({ tools: [{ type: 'bash_20250124', name: 'bash' }] })).toMatchObject({ code: 'invalid_request', param: 'tools[0].type' });
  });
});

describe('decodeMessagesRequest: web search domain filters', () => {
  const search = { type: 'web_search_20250305', name: 'web_search' };

  it.each([
    ['allowed_domains', 'allowedDomains'],
    ['blocked_domains', 'blockedDomains'],
  ] as const)('carries %s and makes it a requirement only Anthropic’s search meets, after the search itself', (field, option) => {
    const call = decode({ tools: [{ name: 'f', input_schema: { type: 'object' } }, { ...search, [field]: ['example.com'], max_uses: 3 }] });
    expect(call.request.webSearch).toEqual({ [option]: ['example.com'] });
    expect(call.parameters.map(({ name, field: named, onlyOn }) => [name, named, onlyOn?.protocols])).toEqual([
      ['tools', 'tools', undefined],
      ['web_search', 'tools[type=web_search]', undefined],
      ['web_search', `tools[1].${field}`, ['anthropic']],
    ]);
    expect(call.parameters[2].onlyOn?.why).toMatch(/cannot be restricted by domain/);
  });

  it('takes an empty or null list as no filter, and no requirement', () => {
    for (const extra of [{ allowed_domains: [] }, { blocked_domains: [] }, { allowed_domains: null, blocked_domains: null }]) {
      const call = decode({ tools: [{ ...search, ...extra }] });
      expect(call.request.webSearch).toEqual({});
      expect(call.parameters).toEqual([{ name: 'web_search', field: 'tools[type=web_search]', preference: true }]);
    }
  });
});

describe('decodeMessagesRequest: thinking and output_config fields only Claude has', () => {
  it('takes thinking between_tools as thinking off elsewhere (no reasoning, no requirement) and keeps it for Anthropic', () => {
    const call = decode({ thinking: { type: 'between_tools' } });
    expect(call.request.reasoning).toBeUndefined();
    expect(call.parameters).toEqual([]);
    expect(call.request.anthropic).toEqual({ body: {}, betas: [], betweenTools: true });
    // An effort beside it is Anthropic's alone, as beside disabled thinking: no reasoning elsewhere.
    const effort = decode({ thinking: { type: 'between_tools' }, output_config: { effort: 'max' } });
    expect(effort.request.reasoning).toBeUndefined();
    expect(effort.request.anthropic).toMatchObject({ betweenTools: true, effort: 'max' });
    expect(effort.parameters).toEqual([]);
  });

  it('keeps thinking disabled off beside an effort: no reasoning for any protocol, the effort and disabled kept for Anthropic', () => {
    for (const effort of ['low', 'medium', 'high', 'xhigh', 'max'] as const) {
      const call = decode({ thinking: { type: 'disabled' }, output_config: { effort } });
      expect(call.request.reasoning).toBeUndefined();
      expect(call.request.anthropic).toEqual({ body: {}, betas: [], thinkingDisabled: true, effort });
      expect(call.parameters).toEqual([]);
    }
    expect(decode({ thinking: { type: 'disabled' } }).request.anthropic).toEqual({ body: {}, betas: [], thinkingDisabled: true });
    // Without thinking, or beside thinking that is on, the effort still tunes reasoning elsewhere.
    expect(decode({ output_config: { effort: 'low' } }).request.reasoning).toEqual({ effort: 'low' });
    expect(decode({ thinking: { type: 'enabled', budget_tokens: 4096 }, output_config: { effort: 'low' } }).request.reasoning).toEqual({ maxTokens: 4096, effort: 'low' });
  });

  it.each(['summarized', 'omitted', 'updates', null] as const)('accepts thinking.display %s beside enabled and adaptive thinking', (display) => {
    const expected = display === null ? {} : { display };
    expect(decode({ thinking: { type: 'adaptive', display } }).request.reasoning).toEqual({ adaptive: true, ...expected });
    expect(decode({ thinking: { type: 'enabled', budget_tokens: 1024, display } }).request.reasoning).toEqual({ maxTokens: 1024, effort: 'low', ...expected });
  });

  it('keeps block_binding for Anthropic beside enabled and adaptive thinking; null is no binding', () => {
    const binding = { prefix_mismatch_behavior: 'drop_block' };
    const enabled = decode({ thinking: { type: 'enabled', budget_tokens: 2048, block_binding: binding } });
    expect(enabled.request.reasoning).toEqual({ maxTokens: 2048, effort: 'low' });
    expect(enabled.request.anthropic).toEqual({ body: {}, betas: [], blockBinding: binding });
    expect(enabled.parameters).toEqual([{ name: 'reasoning', field: 'thinking', preference: true }]);
    const adaptive = decode({ thinking: { type: 'adaptive', display: 'omitted', block_binding: {} } });
    expect(adaptive.request.reasoning).toEqual({ adaptive: true, display: 'omitted' });
    expect(adaptive.request.anthropic?.blockBinding).toEqual({});
    expect(decode({ thinking: { type: 'adaptive', block_binding: null } }).request.anthropic).toBeUndefined();
  });

  it('keeps output_config.task_budget for Anthropic, as a hint that restricts no route (the effort beside it a preference)', () => {
    const budget = { type: 'tokens', total: 64_000, remaining: 12_000 };
    const call = decode({ output_config: { effort: 'high', task_budget: budget } });
    expect(call.request.anthropic).toEqual({ body: {}, betas: [], effort: 'high', taskBudget: budget });
    expect(call.request.reasoning).toEqual({ effort: 'high' });
    expect(call.parameters).toEqual([{ name: 'reasoning', field: 'output_config.effort', preference: true }]);
    expect(decode({ output_config: { task_budget: null } }).request.anthropic).toBeUndefined();
  });

  it('adds them to the other Anthropic-only options, not over them', () => {
    const call = decodeMessagesRequest(
      { ...base, speed: 'fast', thinking: { type: 'between_tools' }, output_config: { task_budget: { type: 'tokens', total: 20_000 } } },
      { 'anthropic-beta': 'task-budgets-2026-03-13' },
    );
    expect(call.request.anthropic).toEqual({
      body: { speed: 'fast' }, betas: ['task-budgets-2026-03-13'], betweenTools: true, taskBudget: { type: 'tokens', total: 20_000 },
    });
  });

  it.each([
    [{ thinking: { type: 'between_tools', budget_tokens: 1024 } }, 'thinking.budget_tokens'],
    [{ thinking: { type: 'between_tools', block_binding: {} } }, 'thinking.block_binding'],
    [{ thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'ignore' } } }, 'thinking.block_binding.prefix_mismatch_behavior'],
    [{ thinking: { type: 'adaptive', block_binding: { on_mismatch: 'error' } } }, 'thinking.block_binding.on_mismatch'],
    [{ thinking: { type: 'adaptive', block_binding: 'error' } }, 'thinking.block_binding'],
    [{ output_config: { task_budget: { type: 'dollars', total: 5 } } }, 'output_config.task_budget.type'],
    [{ output_config: { task_budget: { type: 'tokens' } } }, 'output_config.task_budget.total'],
    [{ output_config: { task_budget: { type: 'tokens', total: 100, remaining: -1 } } }, 'output_config.task_budget.remaining'],
    [{ output_config: { task_budget: { type: 'tokens', total: 100, spent: 5 } } }, 'output_config.task_budget.spent'],
  ])('refuses a malformed one by its path %#', (extra, param) => {
    expect(refusalOf(extra)).toMatchObject({ code: 'invalid_request', param });
  });
});

describe('decodeMessagesRequest: bodies sent by the official Anthropic SDK', () => {
  it('decodes a streaming call with system blocks, thinking, tools and a tool round', async () => {
    let body: Record<string, unknown> | undefined;
    const client = new Anthropic({
      apiKey: 'sk-ant-test',
      baseURL: 'http://gateway.test',
      maxRetries: 0,
      fetch: async (_url, init) => {
        body = JSON.parse(String(init?.body));
        return new Response(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'captured' } }), { status: 400 });
      },
    });
    await client.messages.stream({
      model: 'anthropic/claude-sonnet-4',
      max_tokens: 4096,
      system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'enabled', budget_tokens: 2048 },
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      tool_choice: { type: 'auto' },
      metadata: { user_id: 'u-9' },
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: [
          { type: 'thinking', thinking: 'Call it.', signature: 'sig' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
        ] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '3°C' }] },
      ],
    }).finalMessage().catch(() => undefined);
    if (!body) throw new Error('the SDK sent nothing');
    const call = decodeMessagesRequest(body);
    expect(call.request).toMatchObject({ stream: true, maxTokens: 4096, reasoning: { maxTokens: 2048 }, user: 'u-9', toolChoice: 'auto' });
    expect(call.request.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(call.parameters.map((parameter) => parameter.field)).toEqual(['tools', 'tool_choice', 'thinking']);
  });
});
