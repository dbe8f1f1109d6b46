import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { decodeResponsesRequest } from './decode-request.js';

const base = { model: 'openai/gpt-4o-mini', input: 'Weather?' };
const weather = { type: 'function', name: 'get_weather', description: 'Look it up', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true };

function refusal(body: Record<string, unknown>): GatewayError {
  try {
    decodeResponsesRequest(body);
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('expected the request to be refused');
}

describe('decodeResponsesRequest: tools', () => {
  it('maps function tools and echoes them in wire shape', () => {
    const { call, echo } = decodeResponsesRequest({ ...base, tools: [weather, { type: 'function', name: 'now', parameters: null, strict: null }] });
    expect(call.request.tools).toEqual([
      { name: 'get_weather', description: 'Look it up', parameters: weather.parameters, strict: true },
      { name: 'now', parameters: { type: 'object', properties: {} } },
    ]);
    expect(echo.tools).toEqual([
      weather,
      { type: 'function', name: 'now', description: null, parameters: null, strict: null },
    ]);
    expect(call.parameters).toEqual([{ name: 'tools', field: 'tools' }]);
  });

  it('does not record an empty tools list as a parameter', () => {
    const { call } = decodeResponsesRequest({ ...base, tools: [] });
    expect(call.request.tools).toBeUndefined();
    expect(call.parameters).toEqual([]);
  });

  it.each(['file_search', 'code_interpreter', 'mcp', 'image_generation'])('takes the hosted tool %s, which no provider runs here, as an offer the request is served without', (type) => {
    const { call, echo } = decodeResponsesRequest({ ...base, tools: [weather, { type, server_label: 'x' }] });
    expect(call.offeredTools).toEqual([{ tool: type, field: `tools[type=${type}]` }]);
    expect(call.request.tools?.map((tool) => tool.name)).toEqual(['get_weather']);
    expect(echo.tools).toHaveLength(1);
    expect(refusal({ ...base, tools: [{ type }, { type }] }).message).toBe(`'tools[1]' repeats the ${type} tool`);
  });

  it.each(['computer_use_preview', 'local_shell', 'custom'])('refuses %s, a tool the client runs in a shape only OpenAI defines, naming its type', (type) => {
    const error = refusal({ ...base, tools: [weather, { type }] });
    expect(error.param).toBe('tools[1].type');
    expect(error.message).toContain(`'${type}' is a built-in tool`);
  });

  it('refuses malformed function tools with their path', () => {
    expect(refusal({ ...base, tools: [{ type: 'function' }] }).message).toBe("'tools[0].name' is required");
    expect(refusal({ ...base, tools: [{ ...weather, parameters: 'x' }] }).param).toBe('tools[0].parameters');
    expect(refusal({ ...base, tools: [{ ...weather, defer_loading: 'yes' }] }).param).toBe('tools[0].defer_loading');
    expect(refusal({ ...base, tools: [{ ...weather, cache: true }] }).param).toBe('tools[0].cache');
    expect(refusal({ ...base, tools: [weather, weather] }).message).toBe("'tools[1].name' repeats the function name 'get_weather'");
    expect(refusal({ ...base, tools: {} }).message).toBe("'tools' must be an array");
  });
});

describe('decodeResponsesRequest: namespace and web search tools', () => {
  const namespace = { type: 'namespace', name: 'crm', description: 'CRM tools', tools: [{ ...weather, defer_loading: true }] };

  it('flattens a namespace into functions named namespace__name and remembers how to map calls back', () => {
    const { call, echo } = decodeResponsesRequest({ ...base, tools: [namespace, { ...weather, name: 'other' }] });
    expect(call.request.tools?.map((tool) => tool.name)).toEqual(['crm__get_weather', 'other']);
    expect(echo.toolNamespaces?.get('crm__get_weather')).toEqual({ namespace: 'crm', name: 'get_weather' });
    expect(echo.tools[0]).toMatchObject({ type: 'namespace', name: 'crm', tools: [{ type: 'function', name: 'get_weather' }] });
  });

  it('joins the namespace of a function call sent back in input', () => {
    const { call } = decodeResponsesRequest({
      ...base,
      tools: [namespace],
      input: [
        { role: 'user', content: 'hi' },
        { type: 'function_call', call_id: 'c1', name: 'get_weather', namespace: 'crm', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
      ],
    });
    expect(call.request.messages[1]).toMatchObject({ role: 'assistant', content: [{ type: 'tool-call', name: 'crm__get_weather' }] });
    expect(call.request.messages[2]).toMatchObject({ role: 'tool', toolName: 'crm__get_weather' });
  });

  it('refuses what a namespace cannot hold', () => {
    expect(refusal({ ...base, tools: [{ ...namespace, tools: [{ type: 'custom', name: 'x' }] }] }).param).toBe('tools[0].tools[0].type');
    expect(refusal({ ...base, tools: [{ ...namespace, tools: 'x' }] }).param).toBe('tools[0].tools');
  });

  it.each(['web_search', 'web_search_preview', 'web_search_2025_08_26'])('reads the hosted %s tool as an offered web search, a preference', (type) => {
    const { call } = decodeResponsesRequest({
      ...base,
      tools: [weather, { type, search_context_size: 'high', user_location: { type: 'approximate', city: 'Paris', country: 'FR' } }],
    });
    expect(call.request.webSearch).toEqual({ contextSize: 'high', userLocation: { city: 'Paris', country: 'FR' } });
    expect(call.request.tools?.map((tool) => tool.name)).toEqual(['get_weather']);
    expect(call.parameters).toContainEqual({ name: 'web_search', field: 'tools[type=web_search]', preference: true });
  });

  it('offers deferred tools directly, so a server tool_search has nothing to do and is not forwarded', () => {
    const { call, echo } = decodeResponsesRequest({ ...base, tools: [{ ...weather, defer_loading: true }, { type: 'tool_search' }] });
    expect(call.request.tools?.map((tool) => tool.name)).toEqual(['get_weather']);
    expect(echo.tools[1]).toEqual({ type: 'tool_search' });
    expect(refusal({ ...base, tools: [{ type: 'tool_search', execution: 'client' }] }).param).toBe('tools[0].execution');
  });

  it('makes a domain filter part of the offered search that only some protocols honour, after the search itself; an empty list restricts nothing', () => {
    const { call } = decodeResponsesRequest({ ...base, tools: [weather, { type: 'web_search', filters: { allowed_domains: ['pubmed.ncbi.nlm.nih.gov'] } }] });
    expect(call.request.webSearch).toEqual({ allowedDomains: ['pubmed.ncbi.nlm.nih.gov'] });
    expect(call.parameters.map(({ name, field, onlyOn, preference }) => ({ name, field, protocols: onlyOn?.protocols, preference }))).toEqual([
      { name: 'web_search', field: 'tools[type=web_search]', protocols: undefined, preference: true },
      { name: 'web_search', field: 'tools[1].filters.allowed_domains', protocols: ['anthropic'], preference: true },
      { name: 'tools', field: 'tools', protocols: undefined, preference: undefined },
    ]);
    for (const filters of [{}, { allowed_domains: [] }, { allowed_domains: null }, null]) {
      const neutral = decodeResponsesRequest({ ...base, tools: [{ type: 'web_search', filters }] }).call;
      expect(neutral.request.webSearch).toEqual({});
      expect(neutral.parameters).toEqual([{ name: 'web_search', field: 'tools[type=web_search]', preference: true }]);
    }
    expect(refusal({ ...base, tools: [{ type: 'web_search', filters: { allowed_domains: [5] } }] }).param).toBe('tools[0].filters.allowed_domains[0]');
  });

  it('refuses malformed web search options by path', () => {
    expect(refusal({ ...base, tools: [{ type: 'web_search', search_context_size: 'huge' }] }).param).toBe('tools[0].search_context_size');
    expect(refusal({ ...base, tools: [{ type: 'web_search', color: 'red' }] }).param).toBe('tools[0].color');
  });
});

describe('decodeResponsesRequest: tool_choice', () => {
  it.each(['auto', 'none', 'required'] as const)('accepts %s', (choice) => {
    const { call, echo } = decodeResponsesRequest({ ...base, tools: [weather], tool_choice: choice });
    expect(call.request.toolChoice).toBe(choice);
    expect(echo.tool_choice).toBe(choice);
    expect(call.parameters).toContainEqual({ name: 'tool_choice', field: 'tool_choice' });
  });

  it('maps a named function to a canonical tool choice', () => {
    const { call, echo } = decodeResponsesRequest({ ...base, tools: [weather], tool_choice: { type: 'function', name: 'get_weather' } });
    expect(call.request.toolChoice).toEqual({ type: 'tool', name: 'get_weather' });
    expect(echo.tool_choice).toEqual({ type: 'function', name: 'get_weather' });
  });

  it('refuses choices that name no declared function or another tool kind', () => {
    expect(refusal({ ...base, tools: [weather], tool_choice: { type: 'function', name: 'nope' } }).param).toBe('tool_choice.name');
    expect(refusal({ ...base, tool_choice: { type: 'web_search_preview' } }).param).toBe('tool_choice.type');
    for (const type of ['web_search', 'image_generation', 'code_interpreter']) {
      expect(refusal({ ...base, tools: [{ type }], tool_choice: { type } }).message).toContain(`'${type}' forces a hosted tool`);
    }
    expect(refusal({ ...base, tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] } }).param).toBe('tool_choice.type');
    expect(refusal({ ...base, tool_choice: 'any' }).param).toBe('tool_choice');
  });
});
